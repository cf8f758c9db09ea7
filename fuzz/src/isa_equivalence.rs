//! Target `isa_equivalence`: every SIMD path of every primitive, and every CSR SpMV
//! method and SpMV plan (CSR5, CSR5 column panels), computes what the portable path
//! computes.
//!
//! - Integers (wrapping scans, sorts, merges, heaps): bit-exact against the portable path
//!   and against a std reference.
//! - Floats: the inputs are small integers stored as `f32`/`f64`, so every partial sum is
//!   exact (below 2^24) whatever order the additions run in, and results must be equal
//!   with `==` (signed zeros aside). Sort, merge and heap keys are arbitrary bit patterns
//!   (NaNs, signed zeros) and compared as bits, since the crate orders them by
//!   `total_cmp` and promises identical bits on every `Isa`.
//! - Sorted pairs: identical on every `Isa` (one network); merges of pairs: stable.

use arbitrary::{Arbitrary, Unstructured};
use spblas::SpmvConfig;
use spblas::formats::MAX_PANELS;
use spblas::level2::{SpmvChoice, SpmvPlan, SpmvPlanLayout, SpmvPlanView};
use spblas::primitives::heap::{DHeap, DHeapPairs, Max, Min, k_largest, k_select, k_select_batch};
use spblas::primitives::merge::{
    merge, merge_pairs, merge_path, merge_path_partition, merge_piece, ranking_merge, serial_merge,
};
use spblas::primitives::scan::{
    ScanElem, exclusive_scan, exclusive_scan_into, inclusive_scan, inclusive_scan_into, reduce,
};
use spblas::primitives::segmented::{
    HeadFlags, seg_offset_from_heads, segmented_exclusive_scan, segmented_scan, segmented_sum,
    segmented_sum_seg_offset,
};
use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs, odd_even_sort, odd_even_sort_pairs};
use spblas::primitives::{Key, heap::HeapOrder};
use spblas::{Csr, CsrMethod, Isa, SpMv};
use spblas::{DimError, Exec};

#[derive(Clone, Copy, Debug, Arbitrary)]
pub enum Op {
    Scan,
    Segmented,
    Sort,
    Merge,
    Heap,
    CsrSpmv,
}

#[derive(Debug, Arbitrary)]
pub struct Input {
    pub op: Op,
    /// Element type selector.
    pub ty: u8,
    /// A small parameter (k, parts, split, matrix size ...).
    pub param: u16,
    pub flags: Vec<bool>,
    pub a: Vec<u64>,
    pub b: Vec<u64>,
}

/// Runs the target; returns the number of non-portable paths compared.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let simd = Isa::available().filter(|&i| i != Isa::Portable).count();
    match input.op {
        Op::Scan => match input.ty % 5 {
            0 => scans(&conv::<u32>(&input.a)),
            1 => scans(&conv::<i64>(&input.a)),
            2 => scans(&small_f64(&input.a)),
            3 => scans(&small_f32(&input.a)),
            _ => scans(&conv::<usize>(&input.a)),
        },
        Op::Segmented => match input.ty % 4 {
            0 => segmented(&conv::<u32>(&input.a), &input.flags),
            1 => segmented(&conv::<i64>(&input.a), &input.flags),
            2 => segmented(&small_f64(&input.a), &input.flags),
            _ => segmented(&small_f32(&input.a), &input.flags),
        },
        Op::Sort => {
            let small = input.ty & 0x80 != 0; // many equal keys
            match input.ty % 6 {
                0 => sorts(&keys::<u32>(&input.a, small), &input.b),
                1 => sorts(&keys::<i32>(&input.a, small), &input.b),
                2 => sorts(&keys::<f32>(&input.a, small), &input.b),
                3 => sorts(&keys::<u64>(&input.a, small), &input.b),
                4 => sorts(&keys::<i64>(&input.a, small), &input.b),
                _ => sorts(&keys::<f64>(&input.a, small), &input.b),
            }
        }
        Op::Merge => {
            let small = input.ty & 0x80 != 0;
            let p = usize::from(input.param);
            match input.ty % 4 {
                0 => merges(&keys::<u32>(&input.a, small), &keys::<u32>(&input.b, small), p),
                1 => merges(&keys::<i64>(&input.a, small), &keys::<i64>(&input.b, small), p),
                2 => merges(&keys::<f32>(&input.a, small), &keys::<f32>(&input.b, small), p),
                _ => merges(&keys::<f64>(&input.a, small), &keys::<f64>(&input.b, small), p),
            }
        }
        Op::Heap => {
            let small = input.ty & 0x80 != 0;
            let p = usize::from(input.param);
            match input.ty % 4 {
                0 => heaps(&keys::<u32>(&input.a, small), &input.flags, p),
                1 => heaps(&keys::<i64>(&input.a, small), &input.flags, p),
                2 => heaps(&keys::<f32>(&input.a, small), &input.flags, p),
                _ => heaps(&keys::<f64>(&input.a, small), &input.flags, p),
            }
        }
        Op::CsrSpmv => csr_methods(&input),
    }
    simd
}

/// Element types built from raw `u64`s.
pub trait FromBits: Copy {
    fn from_bits64(b: u64) -> Self;
    fn bits(self) -> u64;
}

macro_rules! from_bits_int {
    ($($t:ty),*) => {$(
        impl FromBits for $t {
            fn from_bits64(b: u64) -> Self { b as $t }
            fn bits(self) -> u64 { self as u64 }
        }
    )*};
}
from_bits_int!(u32, i32, u64, i64, usize);

impl FromBits for f32 {
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl FromBits for f64 {
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

fn conv<T: FromBits>(v: &[u64]) -> Vec<T> {
    v.iter().map(|&b| T::from_bits64(b)).collect()
}

/// Sort keys: raw bit patterns, or (`small`) few distinct values so ties abound. Small
/// float keys include both zeros and a NaN.
fn keys<T: FromBits>(v: &[u64], small: bool) -> Vec<T> {
    if !small {
        return conv(v);
    }
    v.iter()
        .map(|&b| {
            T::from_bits64(match b % 8 {
                0 => 0,
                1 => 1,
                2 => 2,
                3 => 1 << 31,               // f32 -0.0, or a large integer
                4 => 1 << 63,               // f64 -0.0, or a large integer
                5 => 0x7fc0_0000,           // f32 NaN
                6 => 0x7ff8_0000_0000_0000, // f64 NaN
                _ => u64::MAX,
            })
        })
        .collect()
}

fn small_f64(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&b| (b as i64 % 16) as f64).collect()
}
fn small_f32(v: &[u64]) -> Vec<f32> {
    v.iter().map(|&b| (b as i64 % 16) as f32).collect()
}

/// Equality for scan results: `==` per element (exact small integers; `-0 == +0`).
fn eq<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p == q)
}

fn bits_eq<T: FromBits>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.bits() == q.bits())
}

/// Wrapping/IEEE addition for the sequential reference.
pub trait Add: Copy + PartialEq + Default + core::fmt::Debug {
    fn plus(self, o: Self) -> Self;
}
macro_rules! add_int { ($($t:ty),*) => {$( impl Add for $t { fn plus(self, o: Self) -> Self { self.wrapping_add(o) } } )*}; }
add_int!(u32, i64, usize);
impl Add for f64 {
    fn plus(self, o: Self) -> Self {
        self + o
    }
}
impl Add for f32 {
    fn plus(self, o: Self) -> Self {
        self + o
    }
}

fn scans<T: ScanElem + Add>(v: &[T]) {
    // Sequential references.
    let mut incl = v.to_vec();
    let mut acc = T::default();
    for x in &mut incl {
        acc = acc.plus(*x);
        *x = acc;
    }
    let total = acc;
    let mut excl = v.to_vec();
    let mut acc = T::default();
    for x in &mut excl {
        let old = *x;
        *x = acc;
        acc = acc.plus(old);
    }
    for isa in Isa::available() {
        assert!(reduce(Exec::from(isa), v).expect("reduce") == total, "reduce on {isa}");
        let mut w = v.to_vec();
        inclusive_scan(Exec::from(isa), &mut w).expect("inclusive");
        assert!(eq(&w, &incl), "inclusive scan on {isa}: {w:?} != {incl:?}");
        let mut w = v.to_vec();
        let t = exclusive_scan(Exec::from(isa), &mut w).expect("exclusive");
        assert!(eq(&w, &excl) && t == total, "exclusive scan on {isa}");
        let mut d = vec![T::default(); v.len()];
        inclusive_scan_into(Exec::from(isa), v, &mut d).expect("inclusive into");
        assert!(eq(&d, &incl), "inclusive scan into on {isa}");
        let t = exclusive_scan_into(Exec::from(isa), v, &mut d).expect("exclusive into");
        assert!(eq(&d, &excl) && t == total, "exclusive scan into on {isa}");
        let mut short = vec![T::default(); v.len() + 1];
        assert!(inclusive_scan_into(Exec::from(isa), v, &mut short).is_err(), "scan into a wrong-length dst");
    }
}

fn segmented<T: ScanElem + Add>(v: &[T], flags_in: &[bool]) {
    let n = v.len();
    let flags: Vec<bool> = (0..n).map(|i| flags_in.get(i).copied().unwrap_or(i % 5 == 0)).collect();
    let mut words = vec![0u64; n.div_ceil(64)];
    for (i, &f) in flags.iter().enumerate() {
        if f {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    // References: inclusive and exclusive scans restarting at each head (position 0
    // always starts a segment), and each segment's sum at its head.
    let (mut incl, mut excl, mut sums) = (v.to_vec(), v.to_vec(), vec![None; n]);
    let (mut acc, mut head) = (T::default(), 0usize);
    for i in 0..n {
        if i == 0 || flags[i] {
            acc = T::default();
            head = i;
        }
        excl[i] = acc;
        acc = acc.plus(v[i]);
        incl[i] = acc;
        sums[head] = Some(acc);
    }
    let portable = {
        let mut w = v.to_vec();
        segmented_sum(Exec::from(Isa::Portable), &mut w, HeadFlags::bools(&flags)).expect("segmented sum");
        w
    };
    let mut seg_offset = vec![0u32; n];
    seg_offset_from_heads(HeadFlags::bools(&flags), &mut seg_offset).expect("seg_offset");
    for isa in Isa::available() {
        for hf in [HeadFlags::bools(&flags), HeadFlags::bits(&words, n).expect("bits")] {
            let mut w = v.to_vec();
            segmented_scan(Exec::from(isa), &mut w, hf).expect("segmented scan");
            assert!(eq(&w, &incl), "segmented scan on {isa}: {w:?} != {incl:?}");
            let mut w = v.to_vec();
            segmented_exclusive_scan(Exec::from(isa), &mut w, hf).expect("segmented exclusive scan");
            assert!(eq(&w, &excl), "segmented exclusive scan on {isa}");
            let mut w = v.to_vec();
            segmented_sum(Exec::from(isa), &mut w, hf).expect("segmented sum");
            for (i, s) in sums.iter().enumerate() {
                if let Some(s) = s {
                    assert!(w[i] == *s, "segmented sum on {isa}: head {i}");
                }
            }
            assert!(eq(&w, &portable), "segmented sum on {isa} differs from portable");
        }
        let mut d = vec![T::default(); n];
        segmented_sum_seg_offset(Exec::from(isa), v, &seg_offset, &mut d).expect("seg_offset sum");
        for (i, s) in sums.iter().enumerate() {
            match s {
                Some(s) => assert!(d[i] == *s, "seg_offset sum on {isa}: head {i}"),
                None => assert!(d[i] == v[i], "seg_offset sum on {isa}: non-head {i}"),
            }
        }
        // An offset past the end is an error, `dst` untouched.
        if n > 0 {
            let mut bad = seg_offset.clone();
            bad[n - 1] = 1;
            let mut d2 = d.clone();
            assert!(
                segmented_sum_seg_offset(Exec::from(isa), v, &bad, &mut d2).is_err(),
                "seg_offset past the end"
            );
            assert!(eq(&d2, &d), "seg_offset sum wrote on error");
        }
        // Too few flags.
        if n > 0 {
            let mut w = v.to_vec();
            assert!(
                segmented_sum(Exec::from(isa), &mut w, HeadFlags::bools(&flags[..n - 1])).is_err() || n == 0
            );
        }
    }
}

fn total_sorted<K: Key + FromBits>(v: &[K]) -> Vec<K> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.key_cmp(b));
    s
}

/// One pair sort's result per algorithm (bitonic, odd-even): keys, `u64` values, `u32` values.
type PairResults<K> = [(Vec<K>, Vec<u64>, Vec<u32>); 2];

fn sorts<K: Key + FromBits>(keys: &[K], vals_in: &[u64]) {
    let want = total_sorted(keys);
    let vals: Vec<u64> = (0..keys.len()).map(|i| vals_in.get(i).copied().unwrap_or(i as u64)).collect();
    let vals32: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
    let mut reference: Option<PairResults<K>> = None;
    for isa in Isa::available() {
        let mut k = keys.to_vec();
        bitonic_sort(Exec::from(isa), &mut k).expect("bitonic");
        assert!(bits_eq(&k, &want), "bitonic sort on {isa}");
        let mut k = keys.to_vec();
        odd_even_sort(Exec::from(isa), &mut k).expect("odd-even");
        assert!(bits_eq(&k, &want), "odd-even sort on {isa}");
        let mut results = Vec::new();
        for alg in 0..2 {
            let (mut k, mut v, mut k2, mut v2) = (keys.to_vec(), vals.clone(), keys.to_vec(), vals32.clone());
            if alg == 0 {
                bitonic_sort_pairs(Exec::from(isa), &mut k, &mut v).expect("bitonic pairs");
                bitonic_sort_pairs(Exec::from(isa), &mut k2, &mut v2).expect("bitonic pairs u32");
            } else {
                odd_even_sort_pairs(Exec::from(isa), &mut k, &mut v).expect("odd-even pairs");
                odd_even_sort_pairs(Exec::from(isa), &mut k2, &mut v2).expect("odd-even pairs u32");
            }
            assert!(bits_eq(&k, &want) && bits_eq(&k2, &want), "pair sort {alg} on {isa}: keys");
            // The multiset of pairs is kept.
            let mut got: Vec<(u64, u64)> = k.iter().map(|x| x.bits()).zip(v.iter().copied()).collect();
            let mut exp: Vec<(u64, u64)> = keys.iter().map(|x| x.bits()).zip(vals.iter().copied()).collect();
            got.sort_unstable();
            exp.sort_unstable();
            assert!(got == exp, "pair sort {alg} on {isa}: pairs lost");
            results.push((k, v, v2));
        }
        let results: PairResults<K> = results.try_into().expect("two algorithms");
        match &reference {
            None => reference = Some(results),
            Some(r) => {
                for alg in 0..2 {
                    assert!(
                        r[alg].1 == results[alg].1 && r[alg].2 == results[alg].2,
                        "pair sort {alg} on {isa} differs from portable"
                    );
                }
            }
        }
        // Length mismatch: error, nothing touched.
        if !keys.is_empty() {
            let (mut k, mut v) = (keys.to_vec(), vals[..keys.len() - 1].to_vec());
            assert!(bitonic_sort_pairs(Exec::from(isa), &mut k, &mut v).is_err());
            assert!(bits_eq(&k, keys), "pair sort touched keys on error");
        }
    }
}

/// The stable merge of sorted `a` and `b` (ties: `a` first).
fn std_merge<K: Key>(a: &[K], b: &[K]) -> Vec<K> {
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(a.len() + b.len()));
    while i < a.len() && j < b.len() {
        if b[j].key_cmp(&a[i]).is_lt() {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn merges<K: Key + FromBits>(a_raw: &[K], b_raw: &[K], param: usize) {
    let (a, b) = (total_sorted(a_raw), total_sorted(b_raw));
    let want = std_merge(&a, &b);
    let n = a.len() + b.len();
    // Values tag the source: position in a, or 1 << 32 + position in b.
    let av: Vec<u64> = (0..a.len() as u64).collect();
    let bv: Vec<u64> = (0..b.len() as u64).map(|j| (1 << 32) + j).collect();
    let mut want_v = Vec::with_capacity(n);
    {
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if b[j].key_cmp(&a[i]).is_lt() {
                want_v.push(bv[j]);
                j += 1;
            } else {
                want_v.push(av[i]);
                i += 1;
            }
        }
        want_v.extend_from_slice(&av[i..]);
        want_v.extend_from_slice(&bv[j..]);
    }
    let mut out = vec![K::from_bits64(0); n];
    serial_merge(&a, &b, &mut out).expect("serial merge");
    assert!(bits_eq(&out, &want), "serial merge");
    let parts = param % 9 + 1;
    for isa in Isa::available() {
        let mut out = vec![K::from_bits64(0); n];
        merge(Exec::from(isa), &a, &b, &mut out).expect("merge");
        assert!(bits_eq(&out, &want), "merge on {isa}");
        let mut out = vec![K::from_bits64(0); n];
        ranking_merge(Exec::from(isa), &a, &b, &mut out).expect("ranking merge");
        assert!(bits_eq(&out, &want), "ranking merge on {isa}");
        let (mut ok, mut ov) = (vec![K::from_bits64(0); n], vec![0u64; n]);
        merge_pairs(Exec::from(isa), &a, &av, &b, &bv, &mut ok, &mut ov).expect("merge pairs");
        assert!(bits_eq(&ok, &want) && ov == want_v, "merge pairs on {isa} (stable)");
        let mut splits = vec![(0usize, 0usize); parts + 1];
        merge_path_partition(Exec::from(isa), &a, &b, parts, &mut splits).expect("partition");
        assert_eq!(splits[0], (0, 0));
        assert_eq!(splits[parts], (a.len(), b.len()));
        let mut out = vec![K::from_bits64(0); n];
        for w in splits.windows(2) {
            let (s, e) = (w[0], w[1]);
            assert!(s.0 <= e.0 && s.1 <= e.1, "splits not monotone");
            let off = s.0 + s.1;
            let len = (e.0 - s.0) + (e.1 - s.1);
            merge_piece(Exec::from(isa), &a, &b, s, e, &mut out[off..off + len]).expect("merge piece");
        }
        assert!(bits_eq(&out, &want), "merge pieces on {isa}");
        let mut out = vec![K::from_bits64(0); n];
        let mut splits = vec![(0usize, 0usize); parts + 1];
        merge_path(Exec::from(isa), &a, &b, parts, &mut splits, &mut out).expect("merge path");
        assert!(bits_eq(&out, &want), "merge path on {isa}");
        // Unsorted inputs: no panic, whatever comes out (ranking merge must refuse them).
        let mut out = vec![K::from_bits64(0); a_raw.len() + b_raw.len()];
        let _ = merge(Exec::from(isa), a_raw, b_raw, &mut out);
        let _ = merge_path(Exec::from(isa), a_raw, b_raw, parts, &mut splits, &mut out);
        if !bits_eq(a_raw, &a) || !bits_eq(b_raw, &b) {
            assert!(
                ranking_merge(Exec::from(isa), a_raw, b_raw, &mut out).is_err(),
                "ranking merge of unsorted input"
            );
        }
        // Wrong output length.
        let mut out = vec![K::from_bits64(0); n + 1];
        assert!(merge(Exec::from(isa), &a, &b, &mut out).is_err(), "merge into a wrong-length output");
    }
}

/// Pops a heap of `keys` on every `Isa` (the pop order is the sort order); k-selection
/// against the sort; a random sequence of heap operations against the portable heap.
fn heaps<K: Key + FromBits>(keys: &[K], ops: &[bool], param: usize) {
    let sorted = total_sorted(keys);
    let n = keys.len();
    let k = if n == 0 { 0 } else { param % (n + 1) };
    for isa in Isa::available() {
        // Max-heap pops in descending order.
        let mut buf = keys.to_vec();
        let h = DHeap::<K, Max>::from_slice(Exec::from(isa), &mut buf).expect("heap");
        let s = h.into_sorted();
        assert!(bits_eq(s, &sorted), "heap sort (max) on {isa}");
        let mut buf = keys.to_vec();
        let mut h = DHeap::<K, Min>::from_slice(Exec::from(isa), &mut buf).expect("heap");
        for want in &sorted {
            let got = h.pop().expect("pop");
            assert!(got.bits() == want.bits(), "min-heap pop on {isa}");
        }
        assert!(h.pop().is_none());
        // k smallest / largest.
        let mut out = vec![K::from_bits64(0); k];
        let kth = k_select(Exec::from(isa), keys, k, &mut out).expect("k_select");
        if k > 0 {
            assert!(kth.map(FromBits::bits) == Some(sorted[k - 1].bits()), "k_select on {isa}");
            let mut o = total_sorted(&out);
            o.truncate(k);
            assert!(bits_eq(&o, &sorted[..k]), "k_select set on {isa}");
        } else {
            assert!(kth.is_none());
        }
        let kth = k_largest(Exec::from(isa), keys, k, &mut out).expect("k_largest");
        if k > 0 {
            assert!(kth.map(FromBits::bits) == Some(sorted[n - k].bits()), "k_largest on {isa}");
            assert!(bits_eq(&total_sorted(&out), &sorted[n - k..]), "k_largest set on {isa}");
        }
        assert!(k_select(Exec::from(isa), keys, n + 1, &mut out).is_err(), "k > n accepted");
        // Batch: lists of `list_len`.
        let list_len = param % 7 + 1;
        let lists = n / list_len;
        let kk = param % (list_len + 1);
        let mut out = vec![K::from_bits64(0); lists * kk];
        k_select_batch(Exec::from(isa), &keys[..lists * list_len], list_len, kk, &mut out).expect("batch");
        for l in 0..lists {
            let want = total_sorted(&keys[l * list_len..(l + 1) * list_len]);
            assert!(
                bits_eq(&total_sorted(&out[l * kk..(l + 1) * kk]), &want[..kk]),
                "batch k_select on {isa}"
            );
        }
        // Operation sequences agree with the portable heap.
        heap_ops::<K, Max>(isa, keys, ops);
        heap_ops::<K, Min>(isa, keys, ops);
    }
}

fn heap_ops<K: Key + FromBits, O: HeapOrder>(isa: Isa, keys: &[K], ops: &[bool]) {
    let cap = keys.len() / 2 + 1;
    let run = |isa: Isa| -> Vec<u64> {
        let mut buf = vec![K::from_bits64(0); cap];
        let mut kb = vec![K::from_bits64(0); cap];
        let mut vb = vec![0u32; cap];
        let mut h = DHeap::<K, O>::new(Exec::from(isa), &mut buf).expect("heap");
        let mut hp = DHeapPairs::<K, u32, O>::new(Exec::from(isa), &mut kb, &mut vb).expect("pairs heap");
        let mut log = Vec::new();
        for (i, &key) in keys.iter().enumerate() {
            match (ops.get(i).copied().unwrap_or(true), ops.get(i + 1).copied().unwrap_or(false)) {
                (true, _) => {
                    let r = h.push(key).is_ok();
                    let rp = hp.push(key, i as u32).is_ok();
                    assert_eq!(r, rp);
                    log.push(u64::from(r));
                }
                (false, true) => {
                    log.push(h.pop().map_or(u64::MAX, FromBits::bits));
                    log.push(hp.pop().map_or(u64::MAX, |p| p.0.bits()));
                }
                (false, false) => {
                    log.push(h.replace_top(key).map_or(u64::MAX, FromBits::bits));
                    log.push(hp.replace_top(key, i as u32).map_or(u64::MAX, |p| p.0.bits()));
                    // Update a slot chosen by its key, not its index: the layout (the
                    // arity) differs between `Isa`s, the multiset of keys must not. The
                    // first slot holding the smallest key (equal keys are identical bits).
                    let at = (0..h.len()).fold(None, |best: Option<usize>, p| match best {
                        Some(b) if h.as_slice()[b].key_cmp(&h.as_slice()[p]).is_le() => Some(b),
                        _ => Some(p),
                    });
                    if let Some(at) = at {
                        h.update(at, key).expect("update in range");
                    }
                    assert!(h.update(h.len(), key).is_err(), "update past the end");
                }
            }
        }
        let s: Vec<u64> = h.into_sorted().iter().map(|k| k.bits()).collect();
        log.extend(s);
        log
    };
    assert!(run(isa) == run(Isa::Portable), "heap operations on {isa} differ from portable");
}

/// The most entries a generated matrix gets: several merge path pieces and many segment
/// blocks and speculative tiles (`TUNING`: 2 048, 256, 256), no more.
const MAX_NNZ: usize = 12_000;

/// A CSR method on an `Isa` equals a plain row loop (exact: small integers), on matrices
/// large enough to cross the blocks of the segmented methods and the merge path pieces.
/// One method, one `Isa` and one plan of each kind per input, picked by `b` (which this
/// operation reads for nothing else): sweeping all of them made every input cost up to 33
/// SpMVs and 18 plan builds, and the fuzzer reaches every combination across inputs anyway.
fn csr_methods(input: &Input) {
    let nrows = usize::from(input.param) % 700;
    let ncols = usize::from(input.ty) + 1;
    let mut row_ptr = vec![0u32; nrows + 1];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(input.param);
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in 0..nrows {
        // Row lengths from the input: mostly short, some empty, some very long.
        let len = match input.a.get(i % input.a.len().max(1)) {
            Some(&b) if b % 23 == 0 => 300 + (b % 600) as usize,
            Some(&b) => (b % 9) as usize,
            None => i % 4,
        };
        for _ in 0..len {
            col_idx.push((next() % ncols as u64) as u32);
            vals.push((next() % 15) as f64 - 7.0);
        }
        row_ptr[i + 1] = col_idx.len() as u32;
        if col_idx.len() > MAX_NNZ {
            for r in &mut row_ptr[i + 2..] {
                *r = col_idx.len() as u32;
            }
            break;
        }
    }
    let a = Csr::new(nrows, ncols, &row_ptr, &col_idx, &vals).expect("generated CSR is valid");
    let x: Vec<f64> = (0..ncols).map(|j| (j % 7) as f64 - 3.0).collect();
    let y0: Vec<f64> = (0..nrows).map(|i| (i % 5) as f64).collect();
    let (alpha, beta) = (f64::from(input.ty % 3) - 1.0, f64::from((input.ty / 3) % 3));
    let want: Vec<f64> = (0..nrows)
        .map(|i| {
            let dot: f64 = (row_ptr[i] as usize..row_ptr[i + 1] as usize)
                .map(|k| vals[k] * x[col_idx[k] as usize])
                .sum();
            if beta == 0.0 { alpha * dot } else { alpha * dot + beta * y0[i] }
        })
        .collect();
    let pick = input.b.first().copied().unwrap_or(u64::from(input.param) ^ u64::from(input.ty) << 16);
    let nth = |k: u64| -> Isa {
        let n = Isa::available().count() as u64;
        Isa::available().nth((k % n) as usize).expect("k % n is below the count")
    };
    let method = CsrMethod::ALL[((pick >> 8) % CsrMethod::ALL.len() as u64) as usize];
    let isa = nth(pick);
    let mut y = if beta == 0.0 { vec![f64::NAN; nrows] } else { y0.clone() };
    spblas::level2::spmv_csr(Exec::from(isa), &a, method, alpha, &x, beta, &mut y).expect("spmv_csr");
    assert!(crate::same(&y, &want), "csr {method:?} on {isa}");
    // Plans: the rule's, CSR5 or CSR5 on column panels of 1 to 64 columns (up to 256
    // panels, many empty), exact too; only a width of more than `MAX_PANELS` panels is
    // refused.
    let columns = usize::from(input.param / 700) % 64 + 1;
    let isa = nth(pick >> 16);
    let panels = SpmvChoice::Csr5Panels { columns };
    let choice = [SpmvChoice::choose(&a, isa), SpmvChoice::Csr5, panels][((pick >> 24) % 3) as usize];
    match SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(choice)) {
        Ok(plan) => {
            let mut y = if beta == 0.0 { vec![f64::NAN; nrows] } else { y0.clone() };
            plan.spmv(Exec::new(), alpha, &x, beta, &mut y).expect("plan spmv");
            assert!(crate::same(&y, &want), "plan {choice} on {isa}");
        }
        // The rule picks DIA from a sample of rows; the copy's own check of the whole
        // matrix may still refuse it (`SpmvPlan::new` then falls back to a CSR method).
        Err(e) => {
            let too_wide = choice == panels && ncols.div_ceil(columns) > MAX_PANELS;
            let dia_refused = choice == SpmvChoice::Dia
                && matches!(e, DimError::Parameter { name: "dia fill" | "dia diagonals", .. });
            assert!(too_wide || dia_refused, "{choice} on {isa}: {e}");
        }
    }
    // Plans in caller buffers (no allocator): the rule's or CSR5, exact too; DIA forced
    // is taken or refused by its own limits.
    let isa = nth(pick >> 32);
    let choice = [None, Some(SpmvChoice::Csr5), Some(SpmvChoice::Dia)][((pick >> 40) % 3) as usize];
    let layout = match choice {
        None => SpmvPlanLayout::new(Exec::from(isa), &a).expect("plan layout"),
        Some(c) => match SpmvPlanLayout::with_choice(Exec::from(isa), &a, c) {
            Ok(l) => l,
            Err(e) => {
                assert!(c == SpmvChoice::Dia, "{c} on {isa}: {e}");
                return;
            }
        },
    };
    let (mut bi, mut bv, mut bw) =
        (vec![0u32; layout.idx_len()], vec![0.0f64; layout.vals_len()], vec![0u32; layout.words_len()]);
    let plan = SpmvPlanView::from_buffers(&a, &layout, &mut bi, &mut bv, &mut bw).expect("plan in buffers");
    let mut y = if beta == 0.0 { vec![f64::NAN; nrows] } else { y0.clone() };
    plan.spmv(Exec::new(), alpha, &x, beta, &mut y).expect("buffer plan spmv");
    assert!(crate::same(&y, &want), "buffer plan {} on {isa}", layout.choice());
}
