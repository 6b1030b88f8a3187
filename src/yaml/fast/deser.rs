//! The fast reader's serde side: the [`Deserializer`] of a node and of a key, and the map
//! and sequence accessors of block and flow collections.

use super::scalar::{is_null, parse_i64, parse_u64, simple_float, yaml11_bool};
use super::{bail, Bail, Ctx, Node, Parser, Scalar, Style, R};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

impl<'de> Parser<'de> {
    /// A mapping read by `v`; `strict` checks every key for duplicates (`false`: a struct's,
    /// see [`Parser::note_key`]).
    fn visit_map<V: Visitor<'de>>(&mut self, node: Node<'de>, v: V, strict: bool) -> R<V::Value> {
        let base = self.enter()?;
        let value = match node {
            Node::BlockMap(indent) => {
                let mut m = BlockMap {
                    p: self,
                    indent,
                    base,
                    seen: 0,
                    strict,
                    first: true,
                    done: false,
                };
                let value = v.visit_map(&mut m)?;
                if !m.done && m.next_key::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            Node::FlowMap => {
                let mut m = FlowMap {
                    p: self,
                    base,
                    seen: 0,
                    strict,
                    first: true,
                    done: false,
                };
                let value = v.visit_map(&mut m)?;
                if !m.done && m.next_key::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            _ => return bail(),
        };
        self.leave(base);
        Ok(value)
    }

    fn visit_seq<V: Visitor<'de>>(&mut self, node: Node<'de>, v: V) -> R<V::Value> {
        let base = self.enter()?;
        let value = match node {
            Node::BlockSeq(indent) => {
                let mut s = BlockSeq {
                    p: self,
                    indent,
                    first: true,
                    done: false,
                };
                let value = v.visit_seq(&mut s)?;
                // (a tuple's visitor stops at its length: no element may follow, as
                // serde-saphyr checks)
                if !s.done && s.next_element::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            Node::FlowSeq => {
                let mut s = FlowSeq {
                    p: self,
                    first: true,
                    done: false,
                };
                let value = v.visit_seq(&mut s)?;
                // (a tuple's visitor stops at its length: no element may follow, as
                // serde-saphyr checks)
                if !s.done && s.next_element::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            _ => return bail(),
        };
        self.leave(base);
        Ok(value)
    }

    fn scalar(&mut self) -> R<Scalar<'de>> {
        match self.node()? {
            Node::Scalar(s) => Ok(s),
            _ => bail(),
        }
    }
}

macro_rules! int_methods {
    ($($method:ident $visit:ident $t:ty, $parse:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            let x = $parse(s).and_then(|x| <$t>::try_from(x).ok()).ok_or(Bail)?;
            v.$visit(x)
        }
    )*};
}

macro_rules! float_methods {
    ($($method:ident $visit:ident $t:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            if !simple_float(s) {
                return bail();
            }
            match s.parse::<$t>() {
                Ok(x) if x.is_finite() => v.$visit(x),
                _ => bail(),
            }
        }
    )*};
}

/// The scalar-only methods, shared by the node and key deserialisers (`self.scalar()` gives
/// the scalar or gives up).
macro_rules! scalar_methods {
    () => {
        int_methods! {
            deserialize_i8 visit_i8 i8, parse_i64;
            deserialize_i16 visit_i16 i16, parse_i64;
            deserialize_i32 visit_i32 i32, parse_i64;
            deserialize_i64 visit_i64 i64, parse_i64;
            deserialize_u8 visit_u8 u8, parse_u64;
            deserialize_u16 visit_u16 u16, parse_u64;
            deserialize_u32 visit_u32 u32, parse_u64;
            deserialize_u64 visit_u64 u64, parse_u64;
        }
        float_methods! {
            deserialize_f32 visit_f32 f32;
            deserialize_f64 visit_f64 f64;
        }
        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            v.visit_bool(yaml11_bool(s).ok_or(Bail)?)
        }
        fn deserialize_char<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> R<V::Value> {
            bail()
        }
        /// A unit variant written as a plain scalar (`kind: file`); any other shape (a
        /// quoted name, `{Variant: value}`) is left to serde-saphyr.
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            v.visit_enum(de::value::BorrowedStrDeserializer::<Bail>::new(s))
        }
    };
}

impl<'de> Deserializer<'de> for &mut Parser<'de> {
    type Error = Bail;

    scalar_methods!();

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.scalar()?.visit_str(v)
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.scalar()?.visit_str(v)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.scalar()?.visit_str(v)
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Scalar(s) => s.visit_any(v, self.ignoring),
            Node::Empty => v.visit_unit(),
            n @ (Node::BlockMap(_) | Node::FlowMap) => self.visit_map(n, v, true),
            n => self.visit_seq(n, v),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        // (the value of a struct's key that was not checked for duplicates: an unknown key)
        if let Some((key, base)) = self.unchecked.take() {
            self.check_unknown_key(key, base)?;
        }
        let was = std::mem::replace(&mut self.ignoring, true);
        let r = self.deserialize_any(v);
        self.ignoring = was;
        r
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Empty => v.visit_none(),
            Node::Scalar(s) if s.style == Style::Plain && is_null(s.raw) => v.visit_none(),
            n => {
                self.pending = Some(n);
                v.visit_some(self)
            }
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Empty => v.visit_unit(),
            Node::Scalar(s) if s.style == Style::Plain && is_null(s.raw) => v.visit_unit(),
            _ => bail(),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> R<V::Value> {
        if name.starts_with("__yaml_") {
            return bail();
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        let n = self.node()?;
        self.visit_seq(n, v)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> R<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        v: V,
    ) -> R<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        let n = self.node()?;
        self.visit_map(n, v, true)
    }

    /// A struct's keys are checked for duplicates only where the visitor ignores the value
    /// (see [`Parser::note_key`]).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> R<V::Value> {
        let n = self.node()?;
        self.visit_map(n, v, false)
    }
}

/// A mapping key (a scalar).
struct KeyDe<'de>(Scalar<'de>);

impl<'de> KeyDe<'de> {
    #[inline]
    fn scalar(&self) -> R<Scalar<'de>> {
        Ok(self.0)
    }

    /// The key's text to `v`, as [`Scalar::visit_str`] gives it for a key the reader lets
    /// through (no escape, not a null).
    #[inline]
    fn text<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        debug_assert!(!self.0.escaped);
        if self.0.escaped {
            return self.0.visit_str(v);
        }
        v.visit_borrowed_str(self.0.raw)
    }
}

impl<'de> Deserializer<'de> for KeyDe<'de> {
    type Error = Bail;

    scalar_methods!();

    // (a key's text as it stands: `note_key`/`struct_key` let no key that needs decoding
    // or means null through)
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.text(v)
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.text(v)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.text(v)
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.0.visit_any(v, false)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        v.visit_unit()
    }
    fn deserialize_option<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_unit<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> R<V::Value> {
        bail()
    }
    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> R<V::Value> {
        bail()
    }
}

struct BlockMap<'a, 'de> {
    p: &'a mut Parser<'de>,
    indent: usize,
    base: usize,
    /// The fingerprint filter of its keys ([`Parser::note_key`]).
    seen: u64,
    /// Every key checked for duplicates as it is read (else a struct's: see
    /// [`Parser::note_key`]).
    strict: bool,
    first: bool,
    done: bool,
}

impl<'de> MapAccess<'de> for BlockMap<'_, 'de> {
    type Error = Bail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        if self.first {
            self.first = false;
        } else {
            p.end_line()?;
            match p.next_line()? {
                Some(m) if m == self.indent && !p.is_dash(p.pos + m) => p.pos += m,
                // (deeper: a continuation line or malformed; a `-` at the mapping's own
                // indentation after a complete value is malformed too)
                Some(m) if m >= self.indent => return bail(),
                _ => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
        let key = p.block_key()?;
        if self.strict {
            p.note_key(&key, self.base, &mut self.seen)?;
        } else {
            p.struct_key(&key, self.base)?;
        }
        seed.deserialize(KeyDe(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        self.p.ctx = Ctx::AfterKey(self.indent);
        seed.deserialize(&mut *self.p)
    }
}

struct FlowMap<'a, 'de> {
    p: &'a mut Parser<'de>,
    base: usize,
    /// The fingerprint filter of its keys ([`Parser::note_key`]).
    seen: u64,
    /// Every key checked for duplicates as it is read (else a struct's: see
    /// [`Parser::note_key`]).
    strict: bool,
    first: bool,
    done: bool,
}

impl<'de> MapAccess<'de> for FlowMap<'_, 'de> {
    type Error = Bail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        p.skip_spaces();
        if self.first {
            self.first = false;
            if p.at(p.pos) == b'}' {
                p.pos += 1;
                self.done = true;
                return Ok(None);
            }
        } else {
            match p.at(p.pos) {
                b',' => {
                    p.pos += 1;
                    p.skip_spaces();
                }
                b'}' => {
                    p.pos += 1;
                    self.done = true;
                    return Ok(None);
                }
                _ => return bail(),
            }
        }
        let key = p.flow_key()?;
        if self.strict {
            p.note_key(&key, self.base, &mut self.seen)?;
        } else {
            p.struct_key(&key, self.base)?;
        }
        seed.deserialize(KeyDe(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        self.p.ctx = Ctx::Flow;
        let v = seed.deserialize(&mut *self.p)?;
        self.p.skip_spaces();
        Ok(v)
    }
}

struct BlockSeq<'a, 'de> {
    p: &'a mut Parser<'de>,
    indent: usize,
    first: bool,
    done: bool,
}

impl<'de> SeqAccess<'de> for BlockSeq<'_, 'de> {
    type Error = Bail;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        if self.first {
            self.first = false;
        } else {
            p.end_line()?;
            match p.next_line()? {
                Some(m) if m == self.indent && p.is_dash(p.pos + m) => p.pos += m,
                Some(m) if m > self.indent => return bail(),
                _ => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
        p.pos += 1;
        p.ctx = Ctx::AfterDash(self.indent);
        seed.deserialize(&mut *p).map(Some)
    }
}

struct FlowSeq<'a, 'de> {
    p: &'a mut Parser<'de>,
    first: bool,
    done: bool,
}

impl<'de> SeqAccess<'de> for FlowSeq<'_, 'de> {
    type Error = Bail;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        p.skip_spaces();
        if self.first {
            self.first = false;
            if p.at(p.pos) == b']' {
                p.pos += 1;
                self.done = true;
                return Ok(None);
            }
        } else {
            match p.at(p.pos) {
                b',' => {
                    p.pos += 1;
                    p.skip_spaces();
                    if p.at(p.pos) == b']' {
                        return bail();
                    }
                }
                b']' => {
                    p.pos += 1;
                    self.done = true;
                    return Ok(None);
                }
                _ => return bail(),
            }
        }
        p.ctx = Ctx::Flow;
        let v = seed.deserialize(&mut *p)?;
        p.skip_spaces();
        Ok(Some(v))
    }
}
