fn main() {
    let shape = animkit::mw3::gen::Shape {
        defs: 3000,
        max_items: 6,
        max_sequences: 3,
        max_events: 16,
        realistic: std::env::args().nth(2).is_some(),
    };
    let data = animkit::mw3::gen::file(7, &shape).unwrap();
    let mode = std::env::args().nth(1).unwrap_or_default();
    let t = std::time::Instant::now();
    let a = animkit::mw3::Anim::read(&data).unwrap();
    for _ in 0..20 {
        if mode == "yaml" {
            let _ = animkit::registry::Codec::to_yaml(&a, &Default::default()).unwrap();
        } else {
            let a = animkit::mw3::Anim::read(&data).unwrap();
            std::hint::black_box(a);
        }
    }
    eprintln!("{} bytes {:?}", data.len(), t.elapsed() / 20);
}
