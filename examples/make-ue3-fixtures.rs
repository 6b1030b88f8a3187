//! Writes `roundtrip-tests/data/ue3/FORMULAS.UPK` (see `animkit::ue3::upk::synth::formulas`), the
//! package whose PSA export by UE Viewer is kept beside it (README there says how it was made).

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-tests/data/ue3");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("FORMULAS.UPK");
    let bytes = animkit::ue3::upk::synth::formulas();
    std::fs::write(&path, &bytes)?;
    println!("{} ({} bytes)", path.display(), bytes.len());
    Ok(())
}
