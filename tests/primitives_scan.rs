//! Reduce, scans, segmented scans and sums (thesis 4.3.2–4.4.4) on every `Isa` this
//! machine can run, against naive sequential references.
//!
//! Integers (wrapping) must match bit for bit. Floats are checked two ways: values that
//! are small integers, whose every partial sum is exact in any order, must match bit for
//! bit (this pins down lanes, carries and segment boundaries); general values must lie
//! within `4 (k + 2) eps * sum |x|` of a compensated reference, where the sum runs over
//! the `k` terms that make up the result (the prefix, or the segment).

// Positions index several parallel arrays (input, flags, offsets, result) at once.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;
use spblas::Exec;
use spblas::Isa;
use spblas::TUNING;
use spblas::primitives::scan::{
    ScanElem, exclusive_scan, exclusive_scan_into, inclusive_scan, inclusive_scan_into, reduce,
};
use spblas::primitives::segmented::{
    HeadFlags, seg_offset_from_heads, segmented_exclusive_scan, segmented_exclusive_scan_into,
    segmented_scan, segmented_scan_into, segmented_sum, segmented_sum_into, segmented_sum_seg_offset,
};
use spblas::{DimError, primitives::segmented};

// ------------------------------------------------------------------------------------
// References
// ------------------------------------------------------------------------------------

/// A running sum that the reference keeps exact (integers: wrapping; floats: f64 with
/// Neumaier compensation, plus the sum of |x| and the term count for the tolerance).
trait Ref: ScanElem {
    type Acc: Copy + std::fmt::Debug;
    fn acc0() -> Self::Acc;
    fn push(a: Self::Acc, x: Self) -> Self::Acc;
    /// `a - b` for a prefix difference (Alg. 13): value, and the tolerance terms of `a`.
    fn diff(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Whether `got` is the value of `a`.
    fn ok(got: Self, a: Self::Acc) -> bool;
}

macro_rules! ref_int {
    ($($t:ty),*) => {$(
        impl Ref for $t {
            type Acc = $t;
            fn acc0() -> $t { 0 }
            fn push(a: $t, x: $t) -> $t { a.wrapping_add(x) }
            fn diff(a: $t, b: $t) -> $t { a.wrapping_sub(b) }
            fn ok(got: $t, a: $t) -> bool { got == a }
        }
    )*};
}
ref_int!(u32, u64, i32, i64, usize);

#[derive(Clone, Copy, Debug)]
struct FAcc {
    s: f64,
    c: f64,
    abs: f64,
    k: usize,
}

fn fpush(a: FAcc, x: f64) -> FAcc {
    let t = a.s + x;
    let c = if a.s.abs() >= x.abs() { a.c + ((a.s - t) + x) } else { a.c + ((x - t) + a.s) };
    FAcc { s: t, c, abs: a.abs + x.abs(), k: a.k + 1 }
}

macro_rules! ref_float {
    ($($t:ty),*) => {$(
        impl Ref for $t {
            type Acc = FAcc;
            fn acc0() -> FAcc { FAcc { s: 0.0, c: 0.0, abs: 0.0, k: 0 } }
            fn push(a: FAcc, x: $t) -> FAcc { fpush(a, x as f64) }
            fn diff(a: FAcc, b: FAcc) -> FAcc {
                // The value of `a - b`; the tolerance stays that of the longer prefix `a`
                // (the subtraction of two rounded prefix sums is what Alg. 13 computes).
                let d = fpush(fpush(FAcc { s: a.s, c: a.c, abs: 0.0, k: 0 }, -b.s), -b.c);
                FAcc { s: d.s, c: d.c, abs: a.abs, k: a.k }
            }
            fn ok(got: $t, a: FAcc) -> bool {
                let want = a.s + a.c;
                let tol = 4.0 * (a.k as f64 + 2.0) * (<$t>::EPSILON as f64) * a.abs + f64::MIN_POSITIVE;
                (got as f64 - want).abs() <= tol
            }
        }
    )*};
}
ref_float!(f32, f64);

fn head(flags: &[bool], i: usize) -> bool {
    i == 0 || flags[i]
}

fn ref_inclusive<T: Ref>(x: &[T]) -> Vec<T::Acc> {
    let mut a = T::acc0();
    x.iter()
        .map(|&v| {
            a = T::push(a, v);
            a
        })
        .collect()
}

fn ref_exclusive<T: Ref>(x: &[T]) -> (Vec<T::Acc>, T::Acc) {
    let mut a = T::acc0();
    let out = x
        .iter()
        .map(|&v| {
            let before = a;
            a = T::push(a, v);
            before
        })
        .collect();
    (out, a)
}

fn ref_seg_scan<T: Ref>(x: &[T], flags: &[bool], exclusive: bool) -> Vec<T::Acc> {
    let mut a = T::acc0();
    (0..x.len())
        .map(|i| {
            if head(flags, i) {
                a = T::acc0();
            }
            let before = a;
            a = T::push(a, x[i]);
            if exclusive { before } else { a }
        })
        .collect()
}

/// Alg. 12 with position 0 as a head: `None` where the result must be zero.
fn ref_seg_sum<T: Ref>(x: &[T], flags: &[bool]) -> Vec<Option<T::Acc>> {
    let n = x.len();
    let mut out = vec![None; n];
    let mut i = 0;
    while i < n {
        let mut a = T::push(T::acc0(), x[i]);
        let mut j = i + 1;
        while j < n && !flags[j] {
            a = T::push(a, x[j]);
            j += 1;
        }
        out[i] = Some(a);
        i = j;
    }
    out
}

/// `src[i] + .. + src[i + off[i]]` as Alg. 13 forms it: a difference of prefixes.
fn ref_seg_offset<T: Ref>(x: &[T], off: &[u32]) -> Vec<T::Acc> {
    let pre = ref_inclusive(x);
    (0..x.len())
        .map(|i| {
            let j = i + off[i] as usize;
            let before = if i == 0 { T::acc0() } else { pre[i - 1] };
            T::diff(pre[j], before)
        })
        .collect()
}

fn zero<T: ScanElem>() -> T {
    T::default()
}

// ------------------------------------------------------------------------------------
// The check of every primitive on every Isa
// ------------------------------------------------------------------------------------

fn pack_bits(flags: &[bool]) -> Vec<u64> {
    let mut words = vec![0u64; flags.len().div_ceil(64)];
    for (i, &f) in flags.iter().enumerate() {
        if f {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    words
}

fn expect_all<T: Ref>(what: &str, isa: Isa, got: &[T], want: &[T::Acc]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        prop_assert!(T::ok(g, w), "{} on {}: position {} got {:?}, want {:?}", what, isa, i, g, w);
    }
    Ok(())
}

fn check_scans<T: Ref>(x: &[T]) -> Result<(), TestCaseError> {
    let incl = ref_inclusive(x);
    let (excl, total) = ref_exclusive(x);
    for isa in Isa::available() {
        let r = reduce(Exec::from(isa), x).unwrap();
        prop_assert!(T::ok(r, total), "reduce on {}: got {:?}, want {:?}", isa, r, total);

        let mut v = x.to_vec();
        inclusive_scan(Exec::from(isa), &mut v).unwrap();
        expect_all("inclusive_scan", isa, &v, &incl)?;

        let mut d = vec![zero::<T>(); x.len()];
        inclusive_scan_into(Exec::from(isa), x, &mut d).unwrap();
        prop_assert!(d == v, "inclusive_scan_into differs from in place on {}", isa);

        let mut v = x.to_vec();
        let t = exclusive_scan(Exec::from(isa), &mut v).unwrap();
        expect_all("exclusive_scan", isa, &v, &excl)?;
        prop_assert!(T::ok(t, total), "exclusive_scan total on {}: got {:?}, want {:?}", isa, t, total);

        let mut d = vec![zero::<T>(); x.len()];
        let t2 = exclusive_scan_into(Exec::from(isa), x, &mut d).unwrap();
        prop_assert!(d == v && t2 == t, "exclusive_scan_into differs from in place on {}", isa);
    }
    Ok(())
}

fn check_segmented<T: Ref>(x: &[T], flags: &[bool]) -> Result<(), TestCaseError> {
    let n = x.len();
    let words = pack_bits(flags);
    let bits = HeadFlags::bits(&words, n).unwrap();
    let incl = ref_seg_scan(x, flags, false);
    let excl = ref_seg_scan(x, flags, true);
    let sums = ref_seg_sum(x, flags);
    let mut offs = vec![0u32; n];
    seg_offset_from_heads(flags, &mut offs).unwrap();
    let fast = ref_seg_offset(x, &offs);
    for isa in Isa::available() {
        for (name, exclusive, want) in
            [("segmented_scan", false, &incl), ("segmented_exclusive_scan", true, &excl)]
        {
            let run = |v: &mut [T], f: HeadFlags<'_>| {
                if exclusive {
                    segmented_exclusive_scan(Exec::from(isa), v, f)
                } else {
                    segmented_scan(Exec::from(isa), v, f)
                }
            };
            let mut v = x.to_vec();
            run(&mut v, flags.into()).unwrap();
            expect_all(name, isa, &v, want)?;
            let mut w = x.to_vec();
            run(&mut w, bits).unwrap();
            prop_assert!(w == v, "{} with bit flags differs on {}", name, isa);
            let mut d = vec![zero::<T>(); n];
            if exclusive {
                segmented_exclusive_scan_into(Exec::from(isa), x, bits, &mut d).unwrap();
            } else {
                segmented_scan_into(Exec::from(isa), x, bits, &mut d).unwrap();
            }
            prop_assert!(d == v, "{}_into differs on {}", name, isa);
        }

        let mut v = x.to_vec();
        segmented_sum(Exec::from(isa), &mut v, flags).unwrap();
        for (i, (&g, w)) in v.iter().zip(&sums).enumerate() {
            match w {
                Some(w) => prop_assert!(
                    T::ok(g, *w),
                    "segmented_sum on {}: head {} got {:?}, want {:?}",
                    isa,
                    i,
                    g,
                    w
                ),
                None => {
                    prop_assert!(g == zero::<T>(), "segmented_sum on {}: non-head {} got {:?}", isa, i, g)
                }
            }
        }
        let mut w = x.to_vec();
        segmented_sum(Exec::from(isa), &mut w, bits).unwrap();
        prop_assert!(w == v, "segmented_sum with bit flags differs on {}", isa);
        let mut d = vec![zero::<T>(); n];
        segmented_sum_into(Exec::from(isa), x, flags, &mut d).unwrap();
        prop_assert!(d == v, "segmented_sum_into differs on {}", isa);

        let mut d = vec![zero::<T>(); n];
        segmented_sum_seg_offset(Exec::from(isa), x, &offs, &mut d).unwrap();
        expect_all("segmented_sum_seg_offset", isa, &d, &fast)?;
    }
    Ok(())
}

/// Alg. 13 with arbitrary (valid) offsets, not only those of a head-flag array.
fn check_seg_offset_any<T: Ref>(x: &[T], raw: &[u32]) -> Result<(), TestCaseError> {
    let n = x.len();
    let offs: Vec<u32> = raw.iter().enumerate().map(|(i, &r)| (r as usize % (n - i)) as u32).collect();
    let want = ref_seg_offset(x, &offs);
    for isa in Isa::available() {
        let mut d = vec![zero::<T>(); n];
        segmented_sum_seg_offset(Exec::from(isa), x, &offs, &mut d).unwrap();
        expect_all("segmented_sum_seg_offset", isa, &d, &want)?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------
// Strategies
// ------------------------------------------------------------------------------------

/// 0, 1, short, around vector multiples, long (up to 5000).
fn len() -> impl Strategy<Value = usize> {
    prop_oneof![
        1 => Just(0usize),
        1 => Just(1usize),
        4 => 2usize..40,
        2 => (1usize..20).prop_flat_map(|k| (k * 16 - 1)..=(k * 16 + 1)),
        2 => 40usize..600,
        1 => 600usize..5000,
    ]
}

/// Head flags: none, all, first only, or random with a density from dense to sparse.
fn flags(n: usize) -> impl Strategy<Value = Vec<bool>> {
    prop_oneof![
        Just(vec![false; n]),
        Just(vec![true; n]),
        Just((0..n).map(|i| i == 0).collect::<Vec<_>>()),
        prop::sample::select(vec![0.5, 0.2, 0.05, 0.01])
            .prop_flat_map(move |p| prop::collection::vec(prop::bool::weighted(p), n)),
    ]
}

fn u32s() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![3 => any::<u32>(), 1 => Just(u32::MAX), 1 => Just(0u32), 1 => (u32::MAX - 16)..=u32::MAX, 2 => 0u32..100]
}
fn u64s() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![3 => any::<u64>(), 1 => Just(u64::MAX), 1 => Just(0u64), 2 => 0u64..100]
}
fn f64s() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => -1e3f64..1e3,
        1 => -1e300f64..1e300,
        1 => -1e-300f64..1e-300,
        1 => prop::sample::select(vec![0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1e-300, f64::MIN_POSITIVE]),
    ]
}
fn f32s() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        4 => -1e3f32..1e3,
        1 => -1e34f32..1e34,
        1 => -1e-30f32..1e-30,
        1 => prop::sample::select(vec![0.0f32, -0.0, 1.0, -1.0, 1e34, -1e34, f32::MIN_POSITIVE]),
    ]
}
/// Small integers: every partial sum of up to 5000 of them is exact in f32 and f64.
fn small_ints() -> impl Strategy<Value = i32> + Clone {
    -1000i32..1000
}

fn vals_flags<S: Strategy + Clone>(elem: S) -> impl Strategy<Value = (Vec<S::Value>, Vec<bool>)>
where
    S::Value: Clone,
{
    len().prop_flat_map(move |n| (prop::collection::vec(elem.clone(), n), flags(n)))
}

fn vals_offsets<S: Strategy + Clone>(elem: S) -> impl Strategy<Value = (Vec<S::Value>, Vec<u32>)>
where
    S::Value: Clone,
{
    len().prop_filter("non-empty", |&n| n > 0).prop_flat_map(move |n| {
        (
            prop::collection::vec(elem.clone(), n),
            prop::collection::vec(prop_oneof![3 => 0u32..4, 1 => 0u32..64, 1 => any::<u32>()], n),
        )
    })
}

// ------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(target_arch = "x86_64") { 64 } else { 16 }))]

    #[test]
    fn scans_match_sequential_reference_u32(x in len().prop_flat_map(|n| prop::collection::vec(u32s(), n))) {
        check_scans(&x)?;
    }
    #[test]
    fn scans_match_sequential_reference_u64(x in len().prop_flat_map(|n| prop::collection::vec(u64s(), n))) {
        check_scans(&x)?;
    }
    #[test]
    fn scans_match_sequential_reference_f32(x in len().prop_flat_map(|n| prop::collection::vec(f32s(), n))) {
        check_scans(&x)?;
    }
    #[test]
    fn scans_match_sequential_reference_f64(x in len().prop_flat_map(|n| prop::collection::vec(f64s(), n))) {
        check_scans(&x)?;
    }
    #[test]
    fn scans_of_small_integer_floats_are_exact(x in len().prop_flat_map(|n| prop::collection::vec(small_ints(), n))) {
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let xi: Vec<i64> = x.iter().map(|&v| v as i64).collect();
        let mut want = xi.clone();
        spblas::primitives::scan::inclusive_scan(Exec::from(Isa::Portable), &mut want).unwrap();
        for isa in Isa::available() {
            let (mut a, mut b) = (xf.clone(), xd.clone());
            inclusive_scan(Exec::from(isa), &mut a).unwrap();
            inclusive_scan(Exec::from(isa), &mut b).unwrap();
            for i in 0..x.len() {
                prop_assert_eq!(a[i], want[i] as f32, "f32 on {} at {}", isa, i);
                prop_assert_eq!(b[i], want[i] as f64, "f64 on {} at {}", isa, i);
            }
            prop_assert_eq!(reduce(Exec::from(isa), &xf).unwrap(), want.last().copied().unwrap_or(0) as f32);
            let (mut a, mut b) = (xf.clone(), xd.clone());
            exclusive_scan(Exec::from(isa), &mut a).unwrap();
            exclusive_scan(Exec::from(isa), &mut b).unwrap();
            for i in 0..x.len() {
                let w = if i == 0 { 0 } else { want[i - 1] };
                prop_assert_eq!(a[i], w as f32, "exclusive f32 on {} at {}", isa, i);
                prop_assert_eq!(b[i], w as f64, "exclusive f64 on {} at {}", isa, i);
            }
        }
    }
    #[test]
    fn signed_and_usize_scans_wrap_like_unsigned(x in len().prop_flat_map(|n| prop::collection::vec(any::<i64>(), n))) {
        let xi32: Vec<i32> = x.iter().map(|&v| v as i32).collect();
        let xu: Vec<usize> = x.iter().map(|&v| v as usize).collect();
        check_scans(&x)?;
        check_scans(&xi32)?;
        check_scans(&xu)?;
    }

    #[test]
    fn segmented_match_sequential_reference_u32((x, f) in vals_flags(u32s())) {
        check_segmented(&x, &f)?;
    }
    #[test]
    fn segmented_match_sequential_reference_u64((x, f) in vals_flags(u64s())) {
        check_segmented(&x, &f)?;
    }
    #[test]
    fn segmented_match_sequential_reference_f32((x, f) in vals_flags(f32s())) {
        check_segmented(&x, &f)?;
    }
    #[test]
    fn segmented_match_sequential_reference_f64((x, f) in vals_flags(f64s())) {
        check_segmented(&x, &f)?;
    }
    #[test]
    fn segmented_of_small_integer_floats_are_exact((x, f) in vals_flags(small_ints())) {
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let xi: Vec<i64> = x.iter().map(|&v| v as i64).collect();
        let mut offs = vec![0u32; x.len()];
        seg_offset_from_heads(&f, &mut offs).unwrap();
        for isa in Isa::available() {
            for op in 0..4 {
                let run_i = |v: &mut Vec<i64>| match op {
                    0 => segmented_scan(Exec::from(Isa::Portable), v, &f),
                    1 => segmented_exclusive_scan(Exec::from(Isa::Portable), v, &f),
                    2 => segmented_sum(Exec::from(Isa::Portable), v, &f),
                    _ => { let s = v.clone(); segmented_sum_seg_offset(Exec::from(Isa::Portable), &s, &offs, v) }
                };
                let mut want = xi.clone();
                run_i(&mut want).unwrap();
                let (mut a, mut b) = (xf.clone(), xd.clone());
                match op {
                    0 => { segmented_scan(Exec::from(isa), &mut a, &f).unwrap(); segmented_scan(Exec::from(isa), &mut b, &f).unwrap(); }
                    1 => { segmented_exclusive_scan(Exec::from(isa), &mut a, &f).unwrap(); segmented_exclusive_scan(Exec::from(isa), &mut b, &f).unwrap(); }
                    2 => { segmented_sum(Exec::from(isa), &mut a, &f).unwrap(); segmented_sum(Exec::from(isa), &mut b, &f).unwrap(); }
                    _ => {
                        segmented_sum_seg_offset(Exec::from(isa), &xf, &offs, &mut a).unwrap();
                        segmented_sum_seg_offset(Exec::from(isa), &xd, &offs, &mut b).unwrap();
                    }
                }
                for i in 0..x.len() {
                    prop_assert_eq!(a[i], want[i] as f32, "op {} f32 on {} at {}", op, isa, i);
                    prop_assert_eq!(b[i], want[i] as f64, "op {} f64 on {} at {}", op, isa, i);
                }
            }
        }
    }
    #[test]
    fn seg_offset_sum_matches_prefix_differences_u32((x, o) in vals_offsets(u32s())) {
        check_seg_offset_any(&x, &o)?;
    }
    #[test]
    fn seg_offset_sum_matches_prefix_differences_f64((x, o) in vals_offsets(f64s())) {
        check_seg_offset_any(&x, &o)?;
    }
    #[test]
    fn seg_offset_sum_matches_prefix_differences_f32((x, o) in vals_offsets(f32s())) {
        check_seg_offset_any(&x, &o)?;
    }
    #[test]
    fn seg_offset_from_heads_points_at_segment_ends(f in (0usize..300).prop_flat_map(flags)) {
        let mut offs = vec![7u32; f.len()];
        seg_offset_from_heads(&f, &mut offs).unwrap();
        for i in 0..f.len() {
            if head(&f, i) {
                let end = i + offs[i] as usize;
                prop_assert!(end < f.len());
                prop_assert!((i + 1..=end).all(|j| !f[j]));
                prop_assert!(end + 1 == f.len() || f[end + 1]);
            } else {
                prop_assert_eq!(offs[i], 0);
            }
        }
    }
}

// ------------------------------------------------------------------------------------
// Examples and errors
// ------------------------------------------------------------------------------------

#[test]
fn thesis_scan_example_on_every_isa() {
    for isa in Isa::available() {
        let mut v = [3u32, 6, 7, 8, 9, 12];
        inclusive_scan(Exec::from(isa), &mut v).unwrap();
        assert_eq!(v, [3, 9, 16, 24, 33, 45]);
        let mut v = [3.0f64, 6.0, 7.0, 8.0, 9.0, 12.0];
        assert_eq!(exclusive_scan(Exec::from(isa), &mut v).unwrap(), 45.0);
        assert_eq!(v, [0.0, 3.0, 9.0, 16.0, 24.0, 33.0]);
    }
}

#[test]
fn fast_segmented_sum_example_on_every_isa() {
    // A tile's partial sums where columns 1..=2 and 4 continue the segments of 0 and 3.
    let src = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let heads = [true, false, false, true, false, true];
    let mut offs = [0u32; 6];
    seg_offset_from_heads(&heads, &mut offs).unwrap();
    assert_eq!(offs, [2, 0, 0, 1, 0, 0]);
    for isa in Isa::available() {
        let mut dst = [0.0f32; 6];
        segmented_sum_seg_offset(Exec::from(isa), &src, &offs, &mut dst).unwrap();
        assert_eq!(dst, [6.0, 2.0, 3.0, 9.0, 5.0, 6.0]);
        let mut v = src;
        segmented_sum(Exec::from(isa), &mut v, &heads).unwrap();
        assert_eq!(v, [6.0, 0.0, 0.0, 9.0, 0.0, 6.0]);
        let mut v = src;
        segmented_exclusive_scan(Exec::from(isa), &mut v, &heads).unwrap();
        assert_eq!(v, [0.0, 1.0, 3.0, 0.0, 4.0, 0.0]);
    }
}

#[test]
fn unflagged_first_element_starts_a_segment() {
    let heads = [false, false, true, false];
    for isa in Isa::available() {
        let mut v = [1u64, 2, 3, 4];
        segmented_sum(Exec::from(isa), &mut v, &heads).unwrap();
        assert_eq!(v, [3, 0, 7, 0]);
        let mut v = [1u64, 2, 3, 4];
        segmented_scan(Exec::from(isa), &mut v, &heads).unwrap();
        assert_eq!(v, [1, 3, 3, 7]);
    }
}

#[test]
fn empty_inputs_are_fine_on_every_isa() {
    for isa in Isa::available() {
        let mut e: [f64; 0] = [];
        assert_eq!(reduce(Exec::from(isa), &e).unwrap(), 0.0);
        inclusive_scan(Exec::from(isa), &mut e).unwrap();
        assert_eq!(exclusive_scan(Exec::from(isa), &mut e).unwrap(), 0.0);
        segmented_scan(Exec::from(isa), &mut e, &[]).unwrap();
        segmented_sum(Exec::from(isa), &mut e, HeadFlags::bits(&[], 0).unwrap()).unwrap();
        segmented_sum_seg_offset(Exec::from(isa), &[] as &[f64], &[], &mut e).unwrap();
    }
}

#[test]
fn unavailable_isa_is_an_error_and_writes_nothing() {
    let Some(isa) = Isa::ALL.into_iter().find(|i| !i.is_available()) else { return };
    let err = Err(DimError::IsaUnavailable { isa });
    let mut v = [1u32, 2, 3];
    assert_eq!(reduce(Exec::from(isa), &v), err.map(|()| 0));
    assert_eq!(inclusive_scan(Exec::from(isa), &mut v), err);
    assert_eq!(exclusive_scan(Exec::from(isa), &mut v), err.map(|()| 0));
    assert_eq!(segmented_scan(Exec::from(isa), &mut v, &[true, false, true]), err);
    assert_eq!(segmented_sum(Exec::from(isa), &mut v, &[true, false, true]), err);
    let mut d = [9u32; 3];
    assert_eq!(segmented_sum_seg_offset(Exec::from(isa), &[1, 2, 3], &[0, 0, 0], &mut d), err);
    assert_eq!(v, [1, 2, 3]);
    assert_eq!(d, [9; 3]);
}

#[test]
fn wrong_lengths_are_errors_and_write_nothing() {
    let isa = Isa::detect();
    let src = [1.0f64, 2.0, 3.0];
    let mut dst = [9.0f64; 2];
    assert_eq!(
        inclusive_scan_into(Exec::from(isa), &src, &mut dst),
        Err(DimError::Length { operand: "dst", expected: 3, got: 2 })
    );
    assert_eq!(
        exclusive_scan_into(Exec::from(isa), &src, &mut dst),
        Err(DimError::Length { operand: "dst", expected: 3, got: 2 })
    );
    assert_eq!(dst, [9.0; 2]);
    let mut v = src;
    assert_eq!(
        segmented_scan(Exec::from(isa), &mut v, &[true, false]),
        Err(DimError::Length { operand: "head_flags", expected: 3, got: 2 })
    );
    assert_eq!(
        segmented_sum(Exec::from(isa), &mut v, HeadFlags::bits(&[0b101], 4).unwrap()),
        Err(DimError::Length { operand: "head_flags", expected: 3, got: 4 })
    );
    assert_eq!(v, src);
    assert_eq!(
        HeadFlags::bits(&[0], 65).map(|f| f.len()),
        Err(DimError::BufferTooSmall { buffer: "words", needed: 2, got: 1 })
    );
    let mut d = [9.0f64; 3];
    assert_eq!(
        segmented_sum_seg_offset(Exec::from(isa), &src, &[0, 0], &mut d),
        Err(DimError::Length { operand: "seg_offset", expected: 3, got: 2 })
    );
    assert_eq!(
        segmented_sum_seg_offset(Exec::from(isa), &src, &[1, 2, 0], &mut d),
        Err(DimError::OutOfRange { operand: "seg_offset", position: 1, value: 2, max: 1 })
    );
    assert_eq!(
        segmented_sum_seg_offset(Exec::from(isa), &src, &[0, 0, u32::MAX], &mut d),
        Err(DimError::OutOfRange { operand: "seg_offset", position: 2, value: u32::MAX as usize, max: 0 })
    );
    assert_eq!(d, [9.0; 3]);
    let mut o = [5u32; 2];
    assert_eq!(
        seg_offset_from_heads(&[true, false, true], &mut o),
        Err(DimError::Length { operand: "seg_offset", expected: 3, got: 2 })
    );
    assert_eq!(o, [5; 2]);
}

#[test]
fn plain_forms_use_the_detected_isa() {
    let mut v = vec![1u32; 1000];
    assert_eq!(spblas::primitives::scan::reduce(Exec::new(), &v), Ok(1000));
    assert_eq!(spblas::primitives::scan::exclusive_scan(Exec::new(), &mut v), Ok(1000));
    assert_eq!(v[999], 999);
    spblas::primitives::scan::inclusive_scan(Exec::new(), &mut v).unwrap();
    assert_eq!(v[999], 999 * 1000 / 2);
    let flags: Vec<bool> = (0..1000).map(|i: usize| i.is_multiple_of(10)).collect();
    let mut w = vec![1.0f32; 1000];
    segmented::segmented_sum(Exec::new(), &mut w, &flags).unwrap();
    assert!(w.iter().enumerate().all(|(i, &s)| s == if i.is_multiple_of(10) { 10.0 } else { 0.0 }));
}

/// Outputs of `STREAM_MIN_BYTES` and more take the streaming-store path (its vector loop
/// starts where `dst` becomes aligned, the elements before go through the scalar loops):
/// every out-of-place scan at such a size, with `dst` aligned and misaligned by each
/// element offset of a vector, equals the portable result (exact: small integers).
#[test]
fn large_outputs_stream_and_match_portable() {
    fn run<T: ScanElem + From<u8> + PartialEq + std::fmt::Debug>() {
        let n = TUNING.stream_min_bytes / size_of::<T>() + 37;
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let x: Vec<T> = (0..n).map(|_| T::from((next() % 5) as u8)).collect();
        let flags: Vec<bool> = (0..n).map(|_| next() % 7 == 0).collect();
        let words = pack_bits(&flags);
        let bits = HeadFlags::bits(&words, n).unwrap();
        type Kernel<'a, T> = &'a dyn Fn(Isa, &[T], &mut [T]);
        let kernels: [(&str, Kernel<'_, T>); 6] = [
            ("inclusive", &|isa, x, d| inclusive_scan_into(Exec::from(isa), x, d).unwrap()),
            ("exclusive", &|isa, x, d| {
                exclusive_scan_into(Exec::from(isa), x, d).unwrap();
            }),
            ("segmented scan", &|isa, x, d| segmented_scan_into(Exec::from(isa), x, &flags, d).unwrap()),
            ("segmented exclusive", &|isa, x, d| {
                segmented_exclusive_scan_into(Exec::from(isa), x, &flags, d).unwrap()
            }),
            ("segmented sum", &|isa, x, d| segmented_sum_into(Exec::from(isa), x, &flags, d).unwrap()),
            ("segmented sum bits", &|isa, x, d| segmented_sum_into(Exec::from(isa), x, bits, d).unwrap()),
        ];
        let lanes = 64 / size_of::<T>();
        for (name, f) in kernels {
            let mut want = vec![T::default(); n];
            f(Isa::Portable, &x, &mut want);
            for isa in Isa::available().filter(|&i| i != Isa::Portable) {
                let mut buf = vec![T::default(); n + lanes];
                for off in [0, 1, lanes / 2, lanes - 1] {
                    let dst = &mut buf[off..off + n];
                    f(isa, &x, dst);
                    assert!(dst == &want[..], "{name} on {isa:?}, dst offset {off}");
                }
            }
        }
    }
    run::<u32>();
    run::<f64>();
    run::<f32>();
}

/// The fast segmented sum on every path over 40 000 elements: head-style offsets with
/// segments of thousands of elements among short ones, and arbitrary offsets where runs
/// of positions reach to the end of the array.
#[test]
fn seg_offset_sum_long_segments_and_far_reaches_match_reference() {
    let n = 40_000usize;
    let x: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let xf: Vec<f64> = x.iter().map(|&v| f64::from(v % 1000)).collect();
    let check = |offs: &[u32], what: &str| {
        let want = ref_seg_offset(&x, offs);
        let want_f = ref_seg_offset(&xf, offs);
        for isa in Isa::available() {
            let mut d = vec![0u32; n];
            segmented_sum_seg_offset(Exec::from(isa), &x, offs, &mut d).unwrap();
            expect_all(what, isa, &d, &want).unwrap();
            let mut d = vec![0.0f64; n];
            segmented_sum_seg_offset(Exec::from(isa), &xf, offs, &mut d).unwrap();
            expect_all(what, isa, &d, &want_f).unwrap();
        }
    };
    // Head style: short segments with a few of 3 000, 9 000 and 20 000 elements.
    let mut heads = vec![false; n];
    let mut i = 0;
    let mut k = 0u32;
    while i < n {
        heads[i] = true;
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        i += match k >> 28 {
            0 => 3_000,
            1 if i % 3 == 0 => 9_000,
            2 if i < 10_000 => 20_000,
            r => 1 + r as usize % 7,
        };
    }
    let mut offs = vec![0u32; n];
    seg_offset_from_heads(&heads, &mut offs).unwrap();
    check(&offs, "long segments");
    // Arbitrary reaches: `far` positions of each chunk-sized stretch reach to the end.
    for far in [1usize, 5, 31, 32, 33, 200] {
        let offs: Vec<u32> = (0..n)
            .map(|i| if i % 997 < far { (n - 1 - i) as u32 } else { (i % 5) as u32 })
            .map(|o| o.min((n - 1) as u32))
            .enumerate()
            .map(|(i, o)| o.min((n - 1 - i) as u32))
            .collect();
        check(&offs, &format!("{far} far reaches per stretch"));
    }
}
