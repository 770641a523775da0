//! The output stage's lines on the wire ([`Packed`]): each line as one byte string in the
//! crate's codec ([`crate::codec`]: varints for counts, DocIds and lengths, little-endian
//! fixed bytes for floats), instead of the field-by-field encoding of a derived
//! `Serialize` (8-byte lengths, 4-byte DocIds, a tag per option). A `clusters.jsonl` line
//! of four members takes 54 bytes instead of 96, a `pairs.csv` line with an estimate 40
//! instead of 65 (ids of 7 characters, DocIds below 2^21): the output stage is the one exchange whose volume grows with the
//! results, and process 0 receives its part of them.
//!
//! Invariants: [`Pack::unpack`] reads back exactly what [`Pack::pack`] wrote (floats bit
//! for bit, so the written lines are the same bytes); a malformed byte string is an error
//! of the deserializer, never a panic; a packed item's [`Wire`] size is its byte string
//! and the 8-byte length the exchange's encoding puts before it.

use std::path::Path;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::rounds::Wire;
use crate::cluster::stages::{ClusterLine, ClusterRef, PairLine, RemovedLine};
use crate::codec::{put_varint, ByteSource, SliceReader};
use crate::dedup::ScoreKind;
use crate::Result;

/// A value with a compact byte form.
pub(super) trait Pack: Sized {
    /// Appends the value's bytes to `out`.
    fn pack(&self, out: &mut Vec<u8>);
    /// The value read from `r` (what [`Pack::pack`] wrote).
    fn unpack(r: &mut SliceReader<'_>) -> Result<Self>;
}

/// An item sent as its packed bytes.
#[derive(Clone, Debug)]
pub(super) struct Packed<T>(pub T);

/// Where a malformed packed item is reported (it names no file).
const WIRE: &str = "(an exchanged output line)";

impl<T: Pack> Serialize for Packed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut b = Vec::new();
        self.0.pack(&mut b);
        s.serialize_bytes(&b)
    }
}

impl<'de, T: Pack> Deserialize<'de> for Packed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<T: Pack> V<T> {
            fn read<E: de::Error>(b: &[u8]) -> std::result::Result<Packed<T>, E> {
                let mut r = SliceReader::new(b, Path::new(WIRE));
                let v = T::unpack(&mut r).map_err(E::custom)?;
                r.finish().map_err(E::custom)?;
                Ok(Packed(v))
            }
        }
        impl<'de, T: Pack> Visitor<'de> for V<T> {
            type Value = Packed<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a packed output line")
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> std::result::Result<Packed<T>, E> {
                Self::read(b)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Packed<T>, A::Error> {
                let mut b = Vec::new();
                while let Some(x) = seq.next_element::<u8>()? {
                    b.push(x);
                }
                Self::read(&b)
            }
        }
        d.deserialize_bytes(V(std::marker::PhantomData))
    }
}

impl<T: Pack> Wire for Packed<T> {
    fn wire_bytes(&self) -> u64 {
        let mut b = Vec::new();
        self.0.pack(&mut b);
        8 + b.len() as u64
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_bits().to_le_bytes());
}

fn get_u32(r: &mut SliceReader<'_>, what: &str) -> Result<u32> {
    Ok(r.varint_below(1 << 32, what)? as u32)
}

fn get_f64(r: &mut SliceReader<'_>, what: &str) -> Result<f64> {
    Ok(f64::from_bits(r.u64(what)?))
}

/// The field `read` reads when `bit` is set in `flags`, else `None`.
fn optional<T>(
    r: &mut SliceReader<'_>,
    flags: u8,
    bit: u8,
    what: &str,
    read: fn(&mut SliceReader<'_>, &str) -> Result<T>,
) -> Result<Option<T>> {
    (flags & bit != 0).then(|| read(r, what)).transpose()
}

/// Optional fields, one bit each in a flags byte before them.
const HAS_SHARED: u8 = 1;
const HAS_ESTIMATE: u8 = 2;
const HAS_EXACT: u8 = 4;
const HAS_SCORE: u8 = 8;

impl Pack for ClusterLine {
    fn pack(&self, out: &mut Vec<u8>) {
        put_varint(out, self.docs.len() as u64);
        for &d in &self.docs {
            put_varint(out, u64::from(d));
        }
        for id in &self.ids {
            put_str(out, id);
        }
        put_varint(out, u64::from(self.support));
    }

    fn unpack(r: &mut SliceReader<'_>) -> Result<Self> {
        // Each member takes at least two bytes (its DocId and its id's length).
        let n = r.usize_max("members", r.left() / 2)?;
        let docs = (0..n)
            .map(|_| get_u32(r, "member"))
            .collect::<Result<Vec<u32>>>()?;
        let ids = (0..n)
            .map(|_| r.string("member id"))
            .collect::<Result<Vec<String>>>()?;
        let support = get_u32(r, "support")?;
        Ok(ClusterLine { docs, ids, support })
    }
}

impl Pack for PairLine {
    fn pack(&self, out: &mut Vec<u8>) {
        put_str(out, &self.x);
        put_str(out, &self.y);
        put_varint(out, u64::from(self.a));
        put_varint(out, u64::from(self.b));
        let flags = (self.shared.is_some() as u8 * HAS_SHARED)
            | (self.estimate.is_some() as u8 * HAS_ESTIMATE)
            | (self.exact.is_some() as u8 * HAS_EXACT);
        out.push(flags);
        if let Some(s) = self.shared {
            put_varint(out, u64::from(s));
        }
        if let Some(e) = self.estimate {
            put_f64(out, e);
        }
        if let Some(e) = self.exact {
            put_f64(out, e);
        }
    }

    fn unpack(r: &mut SliceReader<'_>) -> Result<Self> {
        let x = r.string("first id")?;
        let y = r.string("second id")?;
        let a = get_u32(r, "first document")?;
        let b = get_u32(r, "second document")?;
        let flags = r.u8("flags")?;
        Ok(PairLine {
            x,
            y,
            a,
            b,
            shared: optional(r, flags, HAS_SHARED, "shared", get_u32)?,
            estimate: optional(r, flags, HAS_ESTIMATE, "estimate", get_f64)?,
            exact: optional(r, flags, HAS_EXACT, "exact", get_f64)?,
        })
    }
}

/// A [`ClusterRef`]'s tag.
const REF_NONE: u8 = 0;
const REF_AT: u8 = 1;
const REF_ID: u8 = 2;

/// A [`ScoreKind`]'s tag.
fn kind_tag(k: ScoreKind) -> u8 {
    match k {
        ScoreKind::Exact => 0,
        ScoreKind::Estimate => 1,
        ScoreKind::None => 2,
    }
}

impl Pack for RemovedLine {
    fn pack(&self, out: &mut Vec<u8>) {
        put_varint(out, u64::from(self.doc));
        put_str(out, &self.id);
        put_str(out, &self.representative);
        match self.cluster {
            ClusterRef::None => out.push(REF_NONE),
            ClusterRef::At { key, nth } => {
                out.push(REF_AT);
                put_varint(out, key);
                put_varint(out, u64::from(nth));
            }
            ClusterRef::Id(id) => {
                out.push(REF_ID);
                put_varint(out, u64::from(id));
            }
        }
        out.push(kind_tag(self.kind) | (self.score.is_some() as u8 * HAS_SCORE));
        if let Some(s) = self.score {
            put_f64(out, s);
        }
    }

    fn unpack(r: &mut SliceReader<'_>) -> Result<Self> {
        let doc = get_u32(r, "removed document")?;
        let id = r.string("removed id")?;
        let representative = r.string("representative")?;
        let cluster = match r.u8("cluster tag")? {
            REF_NONE => ClusterRef::None,
            REF_AT => ClusterRef::At {
                key: r.varint("cluster key")?,
                nth: get_u32(r, "cluster's place")?,
            },
            REF_ID => ClusterRef::Id(get_u32(r, "cluster")?),
            t => return Err(r.err(format!("cluster tag {t} (expected 0, 1 or 2)"))),
        };
        let tag = r.u8("score kind")?;
        let kind = match tag & !HAS_SCORE {
            0 => ScoreKind::Exact,
            1 => ScoreKind::Estimate,
            2 => ScoreKind::None,
            t => return Err(r.err(format!("score kind {t} (expected 0, 1 or 2)"))),
        };
        let score = optional(r, tag, HAS_SCORE, "score", get_f64)?;
        Ok(RemovedLine {
            doc,
            id,
            representative,
            cluster,
            score,
            kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Pack + Clone>(v: &T) -> T {
        let bytes = bincode::serialize(&Packed(v.clone())).unwrap();
        let back: Packed<T> = bincode::deserialize(&bytes).unwrap();
        back.0
    }

    #[test]
    fn lines_read_back_as_written_and_smaller() {
        let c = ClusterLine {
            docs: vec![3, 70_000, 4_000_000_000, 0],
            ids: vec!["d000003".into(), "é".into(), String::new(), "x,y".into()],
            support: 115,
        };
        let got = round_trip(&c);
        assert_eq!((got.docs, got.ids, got.support), (c.docs, c.ids, c.support));
        for (shared, estimate, exact) in [
            (Some(116), Some(0.8285714285714286), None),
            (None, None, Some(f64::MIN_POSITIVE)),
            (Some(u32::MAX), Some(-0.0), Some(1.0)),
            (None, None, None),
        ] {
            let p = PairLine {
                x: "d000000".into(),
                y: "d020029".into(),
                a: 0,
                b: 20_029,
                shared,
                estimate,
                exact,
            };
            let g = round_trip(&p);
            assert_eq!(
                (&g.x, &g.y, g.a, g.b, g.shared),
                (&p.x, &p.y, p.a, p.b, p.shared)
            );
            assert_eq!(g.estimate.map(f64::to_bits), p.estimate.map(f64::to_bits));
            assert_eq!(g.exact.map(f64::to_bits), p.exact.map(f64::to_bits));
            let derived = 35 + 8 + 7 + 8 + 7;
            assert!(Packed(p).wire_bytes() < derived);
        }
        for (cluster, score, kind) in [
            (ClusterRef::None, None, ScoreKind::None),
            (
                ClusterRef::At {
                    key: u64::MAX,
                    nth: 7,
                },
                Some(0.9),
                ScoreKind::Exact,
            ),
            (ClusterRef::Id(12), Some(1.0), ScoreKind::Estimate),
        ] {
            let l = RemovedLine {
                doc: 99,
                id: "a".into(),
                representative: "b".into(),
                cluster,
                score,
                kind,
            };
            let g = round_trip(&l);
            assert_eq!(
                (g.doc, &g.id, &g.representative),
                (l.doc, &l.id, &l.representative)
            );
            assert_eq!((g.cluster, g.kind), (l.cluster, l.kind));
            assert_eq!(g.score.map(f64::to_bits), l.score.map(f64::to_bits));
        }
    }

    /// The sizes the module's documentation gives.
    #[test]
    fn sizes_of_typical_lines() {
        let ids = |n: usize| (0..n).map(|i| format!("d{i:06}")).collect::<Vec<String>>();
        let c = ClusterLine {
            docs: vec![18_114, 40_228, 53_884, 147_171],
            ids: ids(4),
            support: 115,
        };
        assert_eq!(Packed(c).wire_bytes(), 54);
        let p = PairLine {
            x: "d000002".into(),
            y: "d021201".into(),
            a: 20_000,
            b: 21_201,
            shared: Some(112),
            estimate: Some(0.7777777777777778),
            exact: None,
        };
        assert_eq!(Packed(p).wire_bytes(), 40);
    }

    #[test]
    fn malformed_bytes_are_errors() {
        let p = PairLine {
            x: "d000000".into(),
            y: "d020029".into(),
            a: 0,
            b: 20_029,
            shared: Some(3),
            estimate: Some(0.5),
            exact: None,
        };
        let bytes = bincode::serialize(&Packed(p)).unwrap();
        // Cut anywhere in the packed bytes, or with a byte too many.
        for cut in 8..bytes.len() {
            let mut b = bytes[..cut].to_vec();
            b[..8].copy_from_slice(&((cut - 8) as u64).to_le_bytes());
            assert!(
                bincode::deserialize::<Packed<PairLine>>(&b).is_err(),
                "cut {cut}"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        long[..8].copy_from_slice(&((bytes.len() - 7) as u64).to_le_bytes());
        assert!(bincode::deserialize::<Packed<PairLine>>(&long).is_err());
        // A bad tag.
        let l = RemovedLine {
            doc: 1,
            id: "a".into(),
            representative: "b".into(),
            cluster: ClusterRef::None,
            score: None,
            kind: ScoreKind::None,
        };
        let mut b = bincode::serialize(&Packed(l)).unwrap();
        let n = b.len();
        b[n - 2] = 9;
        assert!(bincode::deserialize::<Packed<RemovedLine>>(&b).is_err());
    }
}
