//! Merges and d-heaps (thesis 4.5.4–4.6) on every `Isa` this machine can run, against
//! plain references: std's stable sort of the concatenation, a multiset model of the heap,
//! `select_nth_unstable` for k-selection. Inputs cover lengths 0, 1 and non-powers of two,
//! duplicates, sorted/reverse/unsorted inputs, extreme values and (floats) NaNs, ±0 and
//! infinities.

use proptest::prelude::*;
use spblas::Exec;
use spblas::primitives::Key;
use spblas::primitives::heap::{
    DHeap, DHeapPairs, HeapOrder, Max, Min, aligned_offset, arity, k_largest, k_select, k_select_batch,
};
use spblas::primitives::merge::{
    is_sorted, merge, merge_pairs, merge_path, merge_path_partition, merge_path_split, merge_piece,
    merge_piece_pairs, ranking_merge, ranking_merge_pairs, serial_merge,
};
use spblas::{DimError, Isa};

/// A key type under test: its bits (exact comparison, NaN payloads included), a filler
/// value that shows unwritten slots, and a strategy mixing duplicates, extremes and
/// random values.
trait TestKey: Key {
    fn bits(self) -> u64;
    fn filler() -> Self;
    fn strategy() -> BoxedStrategy<Self>;
}

impl TestKey for u32 {
    fn bits(self) -> u64 {
        self as u64
    }
    fn filler() -> Self {
        0xDEAD_BEEF
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => 0u32..8,
            3 => any::<u32>(),
            1 => prop::sample::select(vec![0, 1, u32::MAX - 1, u32::MAX, 1 << 31, (1 << 31) - 1]),
        ]
        .boxed()
    }
}

impl TestKey for u16 {
    fn bits(self) -> u64 {
        self as u64
    }
    fn filler() -> Self {
        0xBEEF
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => 0u16..8,
            3 => any::<u16>(),
            1 => prop::sample::select(vec![0, 1, u16::MAX - 1, u16::MAX, 1 << 15, (1 << 15) - 1]),
        ]
        .boxed()
    }
}

impl TestKey for u64 {
    fn bits(self) -> u64 {
        self
    }
    fn filler() -> Self {
        0xDEAD_BEEF_DEAD_BEEF
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => 0u64..8,
            3 => any::<u64>(),
            1 => prop::sample::select(vec![0, 1, u64::MAX - 1, u64::MAX, 1 << 63, (1 << 63) - 1]),
        ]
        .boxed()
    }
}

impl TestKey for i32 {
    fn bits(self) -> u64 {
        self as u32 as u64
    }
    fn filler() -> Self {
        0xDEAD_BEEFu32 as i32
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => -4i32..4,
            3 => any::<i32>(),
            1 => prop::sample::select(vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX]),
        ]
        .boxed()
    }
}

impl TestKey for i64 {
    fn bits(self) -> u64 {
        self as u64
    }
    fn filler() -> Self {
        0xDEAD_BEEF_DEAD_BEEFu64 as i64
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => -4i64..4,
            3 => any::<i64>(),
            1 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX]),
        ]
        .boxed()
    }
}

impl TestKey for usize {
    fn bits(self) -> u64 {
        self as u64
    }
    fn filler() -> Self {
        0xDEAD_BEEF
    }
    fn strategy() -> BoxedStrategy<Self> {
        prop_oneof![
            3 => 0usize..8,
            3 => any::<usize>(),
            1 => prop::sample::select(vec![0, 1, usize::MAX - 1, usize::MAX, usize::MAX / 2, usize::MAX / 2 + 1]),
        ]
        .boxed()
    }
}

impl TestKey for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn filler() -> Self {
        f32::from_bits(0xDEAD_BEEF)
    }
    fn strategy() -> BoxedStrategy<Self> {
        let specials = vec![
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7FFF_FFFF), // the largest key: the SIMD pad's value
            f32::from_bits(0xFFFF_FFFF), // the smallest key
            f32::from_bits(0x7F80_0001), // a signalling-pattern NaN
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::MIN,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(1), // the smallest subnormal
            -f32::from_bits(1),
        ];
        prop_oneof![
            3 => (-4i32..4).prop_map(|x| x as f32 * 0.5),
            3 => any::<u32>().prop_map(f32::from_bits),
            2 => prop::sample::select(specials),
        ]
        .boxed()
    }
}

impl TestKey for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn filler() -> Self {
        f64::from_bits(0xDEAD_BEEF_DEAD_BEEF)
    }
    fn strategy() -> BoxedStrategy<Self> {
        let specials = vec![
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7FFF_FFFF_FFFF_FFFF),
            f64::from_bits(0xFFFF_FFFF_FFFF_FFFF),
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN,
            f64::MAX,
            f64::from_bits(1),
            -f64::from_bits(1),
        ];
        prop_oneof![
            3 => (-4i32..4).prop_map(|x| x as f64 * 0.5),
            3 => any::<u64>().prop_map(f64::from_bits),
            2 => prop::sample::select(specials),
        ]
        .boxed()
    }
}

fn bits<K: TestKey>(s: &[K]) -> Vec<u64> {
    s.iter().map(|&k| k.bits()).collect()
}

fn sorted<K: TestKey>(mut v: Vec<K>) -> Vec<K> {
    v.sort_by(|x, y| x.key_cmp(y));
    v
}

/// Lengths covering 0, 1, non-powers of two and the SIMD widths' multiples ± 1.
fn len() -> impl Strategy<Value = usize> {
    prop_oneof![
        2 => 0usize..40,
        2 => 40usize..300,
        1 => prop::sample::select(vec![0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128, 255, 256]),
    ]
}

/// An unsorted list.
fn list<K: TestKey>() -> impl Strategy<Value = Vec<K>> {
    len().prop_flat_map(|n| prop::collection::vec(K::strategy(), n))
}

/// A sorted list.
fn sorted_list<K: TestKey>() -> impl Strategy<Value = Vec<K>> {
    list::<K>().prop_map(sorted)
}

/// Two sorted lists: interleaved, or one entirely below the other (the vector merge then
/// runs one list dry early), or made of few distinct values (long runs of ties).
fn sorted_pair<K: TestKey>() -> impl Strategy<Value = (Vec<K>, Vec<K>)> {
    (sorted_list::<K>(), sorted_list::<K>(), 0..4u8).prop_map(|(a, b, shape)| match shape {
        0 | 1 => {
            let (na, all) = (a.len(), sorted([a, b].concat()));
            let (lo, hi) = all.split_at(if shape == 0 { na } else { all.len() - na });
            if shape == 0 { (lo.to_vec(), hi.to_vec()) } else { (hi.to_vec(), lo.to_vec()) }
        }
        _ => (a, b),
    })
}

fn unavailable_isa() -> Option<Isa> {
    Isa::ALL.into_iter().find(|isa| !isa.is_available())
}

// ------------------------------------------------------------------------------ merges

fn check_merges<K: TestKey>(a: &[K], b: &[K], parts: usize) -> Result<(), TestCaseError> {
    let expected = bits(&sorted([a, b].concat()));
    let n = a.len() + b.len();
    let mut out = vec![K::filler(); n];
    serial_merge(a, b, &mut out).unwrap();
    prop_assert_eq!(&bits(&out), &expected, "serial_merge");
    for isa in Isa::available() {
        out.fill(K::filler());
        merge(Exec::from(isa), a, b, &mut out).unwrap();
        prop_assert_eq!(&bits(&out), &expected, "merge_isa {}", isa);

        out.fill(K::filler());
        ranking_merge(Exec::from(isa), a, b, &mut out).unwrap();
        prop_assert_eq!(&bits(&out), &expected, "ranking_merge_isa {}", isa);

        let mut splits = vec![(usize::MAX, usize::MAX); parts + 1];
        out.fill(K::filler());
        merge_path(Exec::from(isa), a, b, parts, &mut splits, &mut out).unwrap();
        prop_assert_eq!(&bits(&out), &expected, "merge_path_isa {} parts {}", isa, parts);
    }
    Ok(())
}

/// The merge path splits are monotone, start at (0, 0), end at (na, nb), give pieces of
/// output length floor or ceil of n / parts, agree with `merge_path_split`, and the
/// pieces merged in any order (here: reversed and interleaved) give the whole merge.
fn check_partition<K: TestKey>(a: &[K], b: &[K], parts: usize, order_seed: u64) -> Result<(), TestCaseError> {
    let (na, nb, n) = (a.len(), b.len(), a.len() + b.len());
    let mut splits = vec![(usize::MAX, usize::MAX); parts + 3];
    merge_path_partition(Exec::new(), a, b, parts, &mut splits).unwrap();
    prop_assert_eq!(splits[0], (0, 0));
    prop_assert_eq!(splits[parts], (na, nb));
    prop_assert_eq!(splits[parts + 1], (usize::MAX, usize::MAX), "wrote past parts + 1");
    for p in 0..parts {
        let (s, e) = (splits[p], splits[p + 1]);
        prop_assert!(s.0 <= e.0 && s.1 <= e.1, "not monotone at {}: {:?} {:?}", p, s, e);
        let piece = (e.0 - s.0) + (e.1 - s.1);
        prop_assert!(piece == n / parts || piece == n.div_ceil(parts), "piece {} has {} of {}", p, piece, n);
        prop_assert_eq!(s.0 + s.1, p * n / parts);
        prop_assert_eq!(merge_path_split(a, b, s.0 + s.1), s);
    }
    let expected = bits(&sorted([a, b].concat()));
    for isa in Isa::available() {
        let mut out = vec![K::filler(); n];
        // A fixed pseudo-random order of the pieces.
        let mut order: Vec<usize> = (0..parts).collect();
        let mut x = order_seed | 1;
        for i in (1..parts).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for &p in &order {
            let (s, e) = (splits[p], splits[p + 1]);
            let chunk = &mut out[s.0 + s.1..e.0 + e.1];
            merge_piece(Exec::from(isa), a, b, s, e, chunk).unwrap();
        }
        prop_assert_eq!(&bits(&out), &expected, "pieces on {} in order {:?}", isa, order);
    }
    Ok(())
}

/// Unsorted inputs: no panic; merge and merge path write a permutation of a ++ b; the
/// ranking merge refuses (and writes nothing).
fn check_unsorted<K: TestKey>(a: &[K], b: &[K], parts: usize) -> Result<(), TestCaseError> {
    let n = a.len() + b.len();
    let expected = bits(&sorted([a, b].concat()));
    for isa in Isa::available() {
        let mut out = vec![K::filler(); n];
        merge(Exec::from(isa), a, b, &mut out).unwrap();
        prop_assert_eq!(&bits(&sorted(out.clone())), &expected, "merge_isa {} not a permutation", isa);

        let mut splits = vec![(0, 0); parts + 1];
        out.fill(K::filler());
        merge_path(Exec::from(isa), a, b, parts, &mut splits, &mut out).unwrap();
        prop_assert_eq!(&bits(&sorted(out.clone())), &expected, "merge_path_isa {} not a permutation", isa);
        for w in splits.windows(2) {
            prop_assert!(w[0].0 <= w[1].0 && w[0].1 <= w[1].1, "splits not monotone: {:?}", splits);
        }

        out.fill(K::filler());
        let r = ranking_merge(Exec::from(isa), a, b, &mut out);
        if is_sorted(a) && is_sorted(b) {
            r.unwrap();
            prop_assert_eq!(&bits(&out), &expected);
        } else {
            prop_assert!(matches!(r, Err(DimError::Unsorted { .. })), "{:?}", r);
            prop_assert!(out.iter().all(|x| x.bits() == K::filler().bits()), "written on error");
        }
    }
    Ok(())
}

/// Key–value merges are stable: equal keys keep a's pairs first, each list in its order.
/// Values tag (source, index), the reference is std's stable sort of a ++ b.
fn check_pairs_stable<K: TestKey>(a: &[K], b: &[K], parts: usize) -> Result<(), TestCaseError> {
    let av: Vec<u32> = (0..a.len() as u32).collect();
    let bv: Vec<u32> = (0..b.len() as u32).map(|j| j | 1 << 31).collect();
    let mut tagged: Vec<(K, u32)> = a.iter().copied().zip(av.iter().copied()).collect();
    tagged.extend(b.iter().copied().zip(bv.iter().copied()));
    tagged.sort_by(|x, y| x.0.key_cmp(&y.0)); // stable
    let ek: Vec<u64> = tagged.iter().map(|p| p.0.bits()).collect();
    let ev: Vec<u32> = tagged.iter().map(|p| p.1).collect();
    let n = a.len() + b.len();
    for isa in Isa::available() {
        let (mut ok, mut ov) = (vec![K::filler(); n], vec![u32::MAX; n]);
        merge_pairs(Exec::from(isa), a, &av, b, &bv, &mut ok, &mut ov).unwrap();
        prop_assert_eq!(&bits(&ok), &ek);
        prop_assert_eq!(&ov, &ev, "merge_pairs_isa {} not stable", isa);

        let (mut ok, mut ov) = (vec![K::filler(); n], vec![u32::MAX; n]);
        ranking_merge_pairs(isa, a, &av, b, &bv, &mut ok, &mut ov).unwrap();
        prop_assert_eq!(&bits(&ok), &ek);
        prop_assert_eq!(&ov, &ev, "ranking_merge_pairs {} not stable", isa);

        let mut splits = vec![(0, 0); parts + 1];
        merge_path_partition(Exec::from(isa), a, b, parts, &mut splits).unwrap();
        let (mut ok, mut ov) = (vec![K::filler(); n], vec![u32::MAX; n]);
        for w in splits.windows(2) {
            let (s, e) = (w[0], w[1]);
            let r = s.0 + s.1..e.0 + e.1;
            merge_piece_pairs(isa, a, &av, b, &bv, s, e, &mut ok[r.clone()], &mut ov[r]).unwrap();
        }
        prop_assert_eq!(&bits(&ok), &ek);
        prop_assert_eq!(&ov, &ev, "merge_piece_pairs {} not stable", isa);
    }
    Ok(())
}

macro_rules! merge_tests {
    ($m:ident, $t:ty) => {
        mod $m {
            use super::*;

            proptest! {
                #[test]
                fn merges_equal_sorted_concatenation((a, b) in sorted_pair::<$t>(), parts in 1usize..12) {
                    check_merges(&a, &b, parts)?;
                    check_merges(&b, &a, parts)?;
                }

                #[test]
                fn merge_path_partition_is_monotone_balanced_and_pieces_compose(
                    (a, b) in sorted_pair::<$t>(), parts in 1usize..20, seed in any::<u64>()
                ) {
                    check_partition(&a, &b, parts, seed)?;
                }

                #[test]
                fn unsorted_inputs_give_a_permutation_or_an_error(
                    a in list::<$t>(), b in list::<$t>(), parts in 1usize..8
                ) {
                    check_unsorted(&a, &b, parts)?;
                }

                #[test]
                fn pair_merges_are_stable((a, b) in sorted_pair::<$t>(), parts in 1usize..8) {
                    check_pairs_stable(&a, &b, parts)?;
                }
            }
        }
    };
}

merge_tests!(merge_u16, u16);
merge_tests!(merge_u32, u32);
merge_tests!(merge_u64, u64);
merge_tests!(merge_f32, f32);
merge_tests!(merge_f64, f64);
merge_tests!(merge_i32, i32);
merge_tests!(merge_i64, i64);
merge_tests!(merge_usize, usize);

#[test]
fn merge_of_reverse_sorted_and_equal_runs() {
    // Already-merged halves, a reverse-sorted input (unsorted: a permutation), all equal.
    let a: Vec<u32> = (0..1000).collect();
    let b: Vec<u32> = (1000..1777).collect();
    let rev: Vec<u32> = (0..777).rev().collect();
    let same = vec![5u32; 333];
    for isa in Isa::available() {
        let mut out = vec![0; 1777];
        merge(Exec::from(isa), &a, &b, &mut out).unwrap();
        assert_eq!(out, (0..1777).collect::<Vec<_>>());
        merge(Exec::from(isa), &b, &a, &mut out).unwrap();
        assert_eq!(out, (0..1777).collect::<Vec<_>>());
        merge(Exec::from(isa), &a, &rev, &mut out).unwrap();
        let mut s = out.clone();
        s.sort();
        let mut e = [a.clone(), rev.clone()].concat();
        e.sort();
        assert_eq!(s, e);
        let mut out = vec![0; 666];
        merge(Exec::from(isa), &same, &same, &mut out).unwrap();
        assert!(out.iter().all(|&x| x == 5));
    }
}

#[test]
fn merge_errors_are_reported_and_nothing_is_written() {
    let (a, b) = ([1u32, 3], [2u32]);
    let mut out = [7u32; 4];
    assert_eq!(
        merge(Exec::new(), &a, &b, &mut out),
        Err(DimError::Length { operand: "out", expected: 3, got: 4 })
    );
    assert_eq!(
        serial_merge(&a, &b, &mut out[..2]),
        Err(DimError::Length { operand: "out", expected: 3, got: 2 })
    );
    assert_eq!(out, [7; 4]);
    let mut splits = [(9, 9); 3];
    assert_eq!(
        merge_path_partition(Exec::new(), &a, &b, 3, &mut splits),
        Err(DimError::BufferTooSmall { buffer: "splits", needed: 4, got: 3 })
    );
    assert_eq!(
        merge_path_partition(Exec::new(), &a, &b, 0, &mut splits),
        Err(DimError::Parameter { name: "parts", value: 0 })
    );
    assert_eq!(
        merge_path_partition(Exec::new(), &a, &b, usize::MAX, &mut splits),
        Err(DimError::BufferTooSmall { buffer: "splits", needed: usize::MAX, got: 3 })
    );
    assert_eq!(splits, [(9, 9); 3]);
    let isa = Isa::Portable;
    assert_eq!(
        merge_piece(Exec::from(isa), &a, &b, (0, 0), (3, 0), &mut out[..3]),
        Err(DimError::Parameter { name: "end.0", value: 3 })
    );
    assert_eq!(
        merge_piece(Exec::from(isa), &a, &b, (2, 0), (1, 1), &mut out[..2]),
        Err(DimError::Parameter { name: "start.0", value: 2 })
    );
    assert_eq!(
        merge_piece(Exec::from(isa), &a, &b, (0, 0), (1, 1), &mut out[..3]),
        Err(DimError::Length { operand: "out", expected: 2, got: 3 })
    );
    assert_eq!(
        ranking_merge(Exec::from(isa), &[3u32, 1], &b, &mut out[..3]),
        Err(DimError::Unsorted { operand: "a", position: 1 })
    );
    assert_eq!(
        merge_pairs(Exec::from(isa), &a, &[0u8], &b, &[0u8], &mut out[..3], &mut [0u8; 3]),
        Err(DimError::Length { operand: "a_vals", expected: 2, got: 1 })
    );
    assert_eq!(out, [7; 4]);
    if let Some(isa) = unavailable_isa() {
        assert_eq!(merge(Exec::from(isa), &a, &b, &mut out[..3]), Err(DimError::IsaUnavailable { isa }));
        assert_eq!(
            ranking_merge(Exec::from(isa), &a, &b, &mut out[..3]),
            Err(DimError::IsaUnavailable { isa })
        );
        assert_eq!(
            merge_path_partition(Exec::from(isa), &a, &b, 1, &mut splits),
            Err(DimError::IsaUnavailable { isa })
        );
        assert_eq!(
            DHeap::<u32>::new(Exec::from(isa), &mut [0; 4]).err(),
            Some(DimError::IsaUnavailable { isa })
        );
        assert_eq!(k_select(Exec::from(isa), &a, 1, &mut out), Err(DimError::IsaUnavailable { isa }));
    }
    // A split beyond the inputs is clamped, never out of bounds.
    assert_eq!(merge_path_split(&a, &b, 99), (2, 1));
}

// ------------------------------------------------------------------------------- heaps

#[derive(Clone, Debug)]
enum Op<K> {
    Push(K),
    Pop,
    ReplaceTop(K),
    Update(usize, K),
    Clear,
}

fn ops<K: TestKey>() -> impl Strategy<Value = Vec<Op<K>>> {
    let op = prop_oneof![
        6 => K::strategy().prop_map(Op::Push),
        4 => Just(Op::Pop),
        2 => K::strategy().prop_map(Op::ReplaceTop),
        2 => (any::<usize>(), K::strategy()).prop_map(|(i, k)| Op::Update(i, k)),
        1 => Just(Op::Clear),
    ];
    prop::collection::vec(op, 0..400)
}

/// `x` belongs above `y` in a heap of order `O`.
fn above<K: TestKey, O: HeapOrder>(x: K, y: K) -> bool {
    let c = x.key_cmp(&y);
    if O::IS_MIN { c.is_lt() } else { c.is_gt() }
}

fn check_heap_order<K: TestKey, O: HeapOrder>(h: &[K], d: usize) -> Result<(), TestCaseError> {
    for i in 1..h.len() {
        let p = (i - 1) / d;
        prop_assert!(
            !above::<K, O>(h[i], h[p]),
            "child {} {:?} above parent {} {:?} (d = {})",
            i,
            h[i],
            p,
            h[p],
            d
        );
    }
    Ok(())
}

/// The model's root: the best key (ties are bit-identical, so any one will do).
fn model_top<K: TestKey, O: HeapOrder>(m: &[K]) -> Option<usize> {
    (0..m.len()).reduce(|b, i| if above::<K, O>(m[i], m[b]) { i } else { b })
}

fn remove_bits<K: TestKey>(m: &mut Vec<K>, k: K) -> Result<(), TestCaseError> {
    let i = m.iter().position(|x| x.bits() == k.bits());
    prop_assert!(i.is_some(), "{:?} not in the model", k);
    m.swap_remove(i.unwrap_or(0));
    Ok(())
}

/// Runs `ops` on a heap of capacity `cap` on every `Isa` against a multiset model,
/// checking the heap order after each step; heaps of equal arity must also agree
/// exactly (same algorithm, same tie rule).
fn check_heap_ops<K: TestKey, O: HeapOrder>(ops: &[Op<K>], cap: usize) -> Result<(), TestCaseError> {
    let mut layouts: Vec<(usize, Vec<u64>)> = Vec::new();
    for isa in Isa::available() {
        let mut buf = vec![K::filler(); cap];
        let mut h = DHeap::<K, O>::new(Exec::from(isa), &mut buf).unwrap();
        let d = h.arity();
        prop_assert_eq!(d, arity::<K>(isa));
        let mut model: Vec<K> = Vec::new();
        for op in ops {
            match *op {
                Op::Push(k) => {
                    let r = h.push(k);
                    if model.len() == cap {
                        prop_assert_eq!(
                            r,
                            Err(DimError::BufferTooSmall { buffer: "heap", needed: cap + 1, got: cap })
                        );
                    } else {
                        prop_assert!(r.is_ok());
                        model.push(k);
                    }
                }
                Op::Pop => {
                    let got = h.pop();
                    match model_top::<K, O>(&model) {
                        None => prop_assert!(got.is_none()),
                        Some(i) => {
                            prop_assert_eq!(got.map(|k| k.bits()), Some(model[i].bits()));
                            model.swap_remove(i);
                        }
                    }
                }
                Op::ReplaceTop(k) => {
                    let got = h.replace_top(k);
                    match model_top::<K, O>(&model) {
                        None => prop_assert!(got.is_none()),
                        Some(i) => {
                            prop_assert_eq!(got.map(|k| k.bits()), Some(model[i].bits()));
                            model[i] = k;
                        }
                    }
                }
                Op::Update(i, k) => {
                    let idx = if model.is_empty() { i % 3 } else { i % (model.len() + 1) };
                    let old = h.get(idx);
                    let r = h.update(idx, k);
                    match old {
                        None => prop_assert_eq!(r, Err(DimError::Parameter { name: "index", value: idx })),
                        Some(old) => {
                            prop_assert!(r.is_ok());
                            remove_bits(&mut model, old)?;
                            model.push(k);
                        }
                    }
                }
                Op::Clear => {
                    h.clear();
                    model.clear();
                }
            }
            prop_assert_eq!(h.len(), model.len());
            prop_assert_eq!(h.peek().map(|k| k.bits()), model_top::<K, O>(&model).map(|i| model[i].bits()));
            check_heap_order::<K, O>(h.as_slice(), d)?;
        }
        let state = bits(h.as_slice());
        let mut rest = model.clone();
        let sorted_out = bits(h.into_sorted());
        rest.sort_by(|x, y| if O::IS_MIN { y.key_cmp(x) } else { x.key_cmp(y) });
        prop_assert_eq!(&sorted_out, &bits(&rest), "into_sorted on {}", isa);
        if let Some((_, same)) = layouts.iter().find(|(ad, _)| *ad == d) {
            prop_assert_eq!(same, &state, "heaps of arity {} differ between Isas", d);
        }
        layouts.push((d, state));
    }
    Ok(())
}

/// Building from a slice (heapify), then popping everything, sorts.
fn check_heapify<K: TestKey, O: HeapOrder>(data: &[K]) -> Result<(), TestCaseError> {
    let mut expected = sorted(data.to_vec());
    if O::IS_MIN {
        expected.reverse();
    }
    for isa in Isa::available() {
        let mut buf = data.to_vec();
        let h = DHeap::<K, O>::from_slice(Exec::from(isa), &mut buf).unwrap();
        prop_assert!(h.is_full());
        check_heap_order::<K, O>(h.as_slice(), h.arity())?;
        prop_assert_eq!(bits(h.into_sorted()), bits(&expected), "heapify + into_sorted on {}", isa);

        // A prefix heap keeps the rest as capacity.
        let mut buf = data.to_vec();
        let half = data.len() / 2;
        let mut h = DHeap::<K, O>::from_prefix(Exec::from(isa), &mut buf, half).unwrap();
        check_heap_order::<K, O>(h.as_slice(), h.arity())?;
        prop_assert_eq!(h.capacity() - h.len(), data.len() - half);
        for &k in &data[half..] {
            h.push(k).unwrap();
        }
        prop_assert!(h.push(data.first().copied().unwrap_or(K::filler())).is_err());
        prop_assert_eq!(bits(h.into_sorted()), bits(&expected));
    }
    Ok(())
}

/// k-selection equals the first k of the sorted data (and select_nth_unstable's pivot).
fn check_k_select<K: TestKey>(data: &[K], k_seed: usize) -> Result<(), TestCaseError> {
    let k = k_seed % (data.len() + 1);
    let s = sorted(data.to_vec());
    let mut nth = data.to_vec();
    let pivot = if k > 0 { Some(*nth.select_nth_unstable_by(k - 1, |x, y| x.key_cmp(y)).1) } else { None };
    for isa in Isa::available() {
        let mut out = vec![K::filler(); k + 2];
        let r = k_select(Exec::from(isa), data, k, &mut out).unwrap();
        prop_assert_eq!(r.map(|x| x.bits()), pivot.map(|x| x.bits()), "k-th smallest on {}", isa);
        prop_assert_eq!(bits(&sorted(out[..k].to_vec())), bits(&s[..k]), "k smallest on {}", isa);
        check_heap_order::<K, Max>(&out[..k], arity::<K>(isa))?;
        prop_assert!(out[k..].iter().all(|x| x.bits() == K::filler().bits()), "wrote past k");

        let r = k_largest(Exec::from(isa), data, k, &mut out).unwrap();
        let top: Vec<K> = s[s.len() - k..].to_vec();
        prop_assert_eq!(r.map(|x| x.bits()), top.first().map(|x| x.bits()), "k-th largest on {}", isa);
        prop_assert_eq!(bits(&sorted(out[..k].to_vec())), bits(&top), "k largest on {}", isa);
        check_heap_order::<K, Min>(&out[..k], arity::<K>(isa))?;

        prop_assert_eq!(
            k_select(Exec::from(isa), data, data.len() + 1, &mut out),
            Err(DimError::Parameter { name: "k", value: data.len() + 1 })
        );
        if k > 0 {
            prop_assert_eq!(
                k_select(Exec::from(isa), data, k, &mut out[..k - 1]),
                Err(DimError::BufferTooSmall { buffer: "out", needed: k, got: k - 1 })
            );
        }
    }
    Ok(())
}

/// Batch k-selection equals k-selection per list.
fn check_batch<K: TestKey>(data: &[K], list_len: usize, k: usize) -> Result<(), TestCaseError> {
    let lists = data.len() / list_len;
    let data = &data[..lists * list_len];
    for isa in Isa::available() {
        let mut out = vec![K::filler(); lists * k];
        k_select_batch(Exec::from(isa), data, list_len, k, &mut out).unwrap();
        for (l, o) in data.chunks_exact(list_len).zip(out.chunks_exact(k.max(1))) {
            let s = sorted(l.to_vec());
            prop_assert_eq!(bits(&sorted(o[..k].to_vec())), bits(&s[..k]));
        }
    }
    Ok(())
}

/// A key–value heap keeps each value with its key through every operation.
fn check_pairs_heap<K: TestKey, O: HeapOrder>(ops: &[Op<K>], cap: usize) -> Result<(), TestCaseError> {
    for isa in Isa::available() {
        let (mut kb, mut vb) = (vec![K::filler(); cap], vec![u32::MAX; cap]);
        let mut h = DHeapPairs::<K, u32, O>::new(Exec::from(isa), &mut kb, &mut vb).unwrap();
        let mut model: Vec<(K, u32)> = Vec::new();
        let mut next = 0u32;
        for op in ops {
            match *op {
                Op::Push(k) | Op::Update(_, k) => {
                    if h.push(k, next).is_ok() {
                        model.push((k, next));
                    } else {
                        prop_assert_eq!(model.len(), cap);
                    }
                    next += 1;
                }
                Op::Pop | Op::Clear => {
                    let got = h.pop();
                    let keys: Vec<K> = model.iter().map(|p| p.0).collect();
                    match model_top::<K, O>(&keys) {
                        None => prop_assert!(got.is_none()),
                        Some(i) => {
                            let (k, v) = got.unwrap();
                            prop_assert_eq!(k.bits(), model[i].0.bits());
                            let j = model.iter().position(|p| p.1 == v);
                            prop_assert!(j.is_some(), "value {} lost", v);
                            let j = j.unwrap_or(0);
                            prop_assert_eq!(model[j].0.bits(), k.bits(), "value {} moved to another key", v);
                            model.swap_remove(j);
                        }
                    }
                }
                Op::ReplaceTop(k) => {
                    let got = h.replace_top(k, next);
                    if let Some((ok, ov)) = got {
                        let j = model.iter().position(|p| p.1 == ov).unwrap();
                        prop_assert_eq!(model[j].0.bits(), ok.bits());
                        model[j] = (k, next);
                    } else {
                        prop_assert!(model.is_empty());
                    }
                    next += 1;
                }
            }
            prop_assert_eq!(h.len(), model.len());
            check_heap_order::<K, O>(h.keys(), h.arity())?;
            for (k, v) in h.keys().iter().zip(h.vals()) {
                let p = model.iter().find(|p| p.1 == *v);
                prop_assert_eq!(p.map(|p| p.0.bits()), Some(k.bits()));
            }
        }
        if let Some(i) = (!h.is_empty()).then_some(0) {
            let idx = i;
            let v = h.get(idx).unwrap().1;
            h.update(idx, K::filler()).unwrap();
            check_heap_order::<K, O>(h.keys(), h.arity())?;
            let pos = h.vals().iter().position(|&x| x == v).unwrap();
            prop_assert_eq!(h.keys()[pos].bits(), K::filler().bits());
        }
        let (keys, _) = h.into_sorted();
        let mut k2 = keys.to_vec();
        k2.sort_by(|x, y| if O::IS_MIN { y.key_cmp(x) } else { x.key_cmp(y) });
        prop_assert_eq!(bits(keys), bits(&k2));
    }
    Ok(())
}

macro_rules! heap_tests {
    ($m:ident, $t:ty) => {
        mod $m {
            use super::*;

            proptest! {
                #[test]
                fn max_heap_matches_multiset_model(ops in ops::<$t>(), cap in 0usize..120) {
                    check_heap_ops::<$t, Max>(&ops, cap)?;
                }

                #[test]
                fn min_heap_matches_multiset_model(ops in ops::<$t>(), cap in 0usize..120) {
                    check_heap_ops::<$t, Min>(&ops, cap)?;
                }

                #[test]
                fn heapify_then_into_sorted_sorts(data in list::<$t>()) {
                    check_heapify::<$t, Max>(&data)?;
                    check_heapify::<$t, Min>(&data)?;
                    check_heapify::<$t, Max>(&sorted(data.clone()))?;
                    let mut rev = sorted(data);
                    rev.reverse();
                    check_heapify::<$t, Min>(&rev)?;
                }

                #[test]
                fn k_select_equals_sorted_prefix(data in list::<$t>(), k in any::<usize>()) {
                    check_k_select(&data, k)?;
                    check_k_select(&sorted(data.clone()), k)?;
                    let mut rev = sorted(data);
                    rev.reverse();
                    check_k_select(&rev, k)?;
                }

                #[test]
                fn batch_k_select_equals_per_list(data in list::<$t>(), list_len in 1usize..40, k in any::<usize>()) {
                    check_batch(&data, list_len, k % (list_len + 1))?;
                }

                #[test]
                fn pair_heap_keeps_values_with_keys(ops in ops::<$t>(), cap in 0usize..80) {
                    check_pairs_heap::<$t, Max>(&ops, cap)?;
                    check_pairs_heap::<$t, Min>(&ops, cap)?;
                }
            }
        }
    };
}

heap_tests!(heap_u16, u16);
heap_tests!(heap_u32, u32);
heap_tests!(heap_u64, u64);
heap_tests!(heap_f32, f32);
heap_tests!(heap_f64, f64);
heap_tests!(heap_i32, i32);
heap_tests!(heap_i64, i64);
heap_tests!(heap_usize, usize);

#[test]
fn k_select_on_a_large_input_matches_select_nth_unstable() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let data: Vec<u32> = (0..100_003)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as u32
        })
        .collect();
    for k in [1, 16, 256, 4096] {
        let mut nth = data.clone();
        let pivot = *nth.select_nth_unstable(k - 1).1;
        let mut expected = nth[..k].to_vec();
        expected.sort();
        for isa in Isa::available() {
            let mut out = vec![0; k];
            assert_eq!(k_select(Exec::from(isa), &data, k, &mut out), Ok(Some(pivot)));
            out.sort();
            assert_eq!(out, expected, "{isa} k = {k}");
        }
        let mut out = vec![0; k];
        assert_eq!(k_select(Exec::new(), &data, k, &mut out), Ok(Some(pivot)));
    }
}

#[test]
fn heap_edge_cases() {
    for isa in Isa::available() {
        // Capacity 0: every push fails, every pop is None.
        let mut h = DHeap::<u32>::new(Exec::from(isa), &mut []).unwrap();
        assert_eq!(h.push(1), Err(DimError::BufferTooSmall { buffer: "heap", needed: 1, got: 0 }));
        assert_eq!(h.pop(), None);
        assert_eq!(h.peek(), None);
        assert_eq!(h.replace_top(3), None);
        assert_eq!(h.update(0, 1), Err(DimError::Parameter { name: "index", value: 0 }));
        // Prefix longer than the buffer.
        let mut buf = [1u64, 2];
        assert_eq!(
            DHeap::<u64>::from_prefix(Exec::from(isa), &mut buf, 3).err(),
            Some(DimError::BufferTooSmall { buffer: "buf", needed: 3, got: 2 })
        );
        // Mismatched key/value buffers.
        let (mut k, mut v) = ([0u32; 3], [0u8; 2]);
        assert_eq!(
            DHeapPairs::<u32, u8>::new(Exec::from(isa), &mut k, &mut v).err(),
            Some(DimError::Length { operand: "vals", expected: 3, got: 2 })
        );
        // Batch errors.
        let data = [1.0f32; 10];
        let mut out = [0.0f32; 10];
        assert_eq!(
            k_select_batch(Exec::from(isa), &data, 0, 1, &mut out),
            Err(DimError::Parameter { name: "list_len", value: 0 })
        );
        assert_eq!(
            k_select_batch(Exec::from(isa), &data, 5, 6, &mut out),
            Err(DimError::Parameter { name: "k", value: 6 })
        );
        assert_eq!(
            k_select_batch(Exec::from(isa), &data, 3, 1, &mut out),
            Err(DimError::Length { operand: "data", expected: 9, got: 10 })
        );
        assert_eq!(
            k_select_batch(Exec::from(isa), &data, 2, 2, &mut out[..9]),
            Err(DimError::BufferTooSmall { buffer: "out", needed: 10, got: 9 })
        );
        // An aligned heap starts where its child groups sit on d * size bytes.
        let mut store = vec![0u64; 100];
        let d = arity::<u64>(isa);
        let s = aligned_offset(isa, &store);
        assert!(s < d);
        assert_eq!((store[s + 1..].as_ptr() as usize) % (8 * d), 0);
        let mut h = DHeap::<u64, Min>::new_aligned(Exec::from(isa), &mut store).unwrap();
        assert_eq!(h.capacity(), 100 - s);
        for k in (0..50u64).rev() {
            h.push(k * 7 % 50).unwrap();
        }
        assert_eq!((0..50).map(|_| h.pop().unwrap()).collect::<Vec<_>>(), (0..50).collect::<Vec<_>>());
        assert_eq!(aligned_offset(isa, &store[..0]), 0);
        // NaNs take their total-order places in both heap orders.
        let mut buf = [f64::NAN, -f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY];
        let sorted = DHeap::<f64, Max>::from_slice(Exec::from(isa), &mut buf).unwrap().into_sorted();
        let b: Vec<u64> = sorted.iter().map(|x| x.to_bits()).collect();
        let e: Vec<u64> = [-f64::NAN, f64::NEG_INFINITY, -0.0, 0.0, f64::INFINITY, f64::NAN]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(b, e, "{isa}");
    }
}
