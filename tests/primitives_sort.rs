//! Bitonic and odd-even merge sort on every `Isa` this machine can run, against the
//! standard library's sorts: keys of every type, key-value pairs, any length.

use proptest::prelude::*;
use proptest::sample::select;
use spblas::Exec;
use spblas::primitives::Key;
use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs, odd_even_sort, odd_even_sort_pairs};
use spblas::{DimError, Isa};

/// Fewer cases under qemu, where every case is emulated.
fn cases() -> u32 {
    if cfg!(target_arch = "x86_64") { 192 } else { 32 }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alg {
    Bitonic,
    OddEven,
}

const ALGS: [Alg; 2] = [Alg::Bitonic, Alg::OddEven];

fn sort_keys<K: Key>(alg: Alg, isa: Isa, keys: &mut [K]) {
    match alg {
        Alg::Bitonic => bitonic_sort(Exec::from(isa), keys),
        Alg::OddEven => odd_even_sort(Exec::from(isa), keys),
    }
    .expect("available isa");
}

fn sort_pairs<K: Key, V: bytemuck::Pod>(alg: Alg, isa: Isa, keys: &mut [K], vals: &mut [V]) {
    match alg {
        Alg::Bitonic => bitonic_sort_pairs(Exec::from(isa), keys, vals),
        Alg::OddEven => odd_even_sort_pairs(Exec::from(isa), keys, vals),
    }
    .expect("available isa, equal lengths");
}

/// A key type with its reference order and a bit image for exact comparison.
trait TestKey: Key + Copy + std::fmt::Debug + PartialEq + 'static {
    fn bits(self) -> u64;
    fn reference(v: &mut [Self]);
    fn specials() -> Vec<Self>;
}

macro_rules! int_key {
    ($($t:ty),*) => {$(
        impl TestKey for $t {
            fn bits(self) -> u64 {
                self as u64
            }
            fn reference(v: &mut [Self]) {
                v.sort_unstable();
            }
            fn specials() -> Vec<Self> {
                vec![<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX - 1, <$t>::MIN + 1, <$t>::MAX / 2, (<$t>::MAX / 2) + 1]
            }
        }
    )*};
}

int_key!(u16, u32, i32, u64, i64, usize);

impl TestKey for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn reference(v: &mut [Self]) {
        v.sort_by(f32::total_cmp);
    }
    fn specials() -> Vec<Self> {
        vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc0_0001),
            f32::from_bits(0xffff_ffff),
            f32::from_bits(0x7f80_0001),
            f32::MIN,
            f32::MAX,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            1.0,
            -1.0,
        ]
    }
}

impl TestKey for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn reference(v: &mut [Self]) {
        v.sort_by(f64::total_cmp);
    }
    fn specials() -> Vec<Self> {
        vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::from_bits(u64::MAX),
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::MIN,
            f64::MAX,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x8000_0000_0000_0001),
            1.0,
            -1.0,
        ]
    }
}

/// How an input is arranged.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Random,
    Sorted,
    Reversed,
    AllEqual,
    FewDistinct,
    OrganPipe,
}

fn shape(v: &mut [impl TestKey], s: Shape) {
    match s {
        Shape::Random => {}
        Shape::Sorted => TestKey::reference(v),
        Shape::Reversed => {
            TestKey::reference(v);
            v.reverse();
        }
        Shape::AllEqual => {
            if let Some(&x) = v.first() {
                v.fill(x);
            }
        }
        Shape::FewDistinct => {
            for i in 3..v.len() {
                v[i] = v[i % 3];
            }
        }
        Shape::OrganPipe => {
            TestKey::reference(v);
            let n = v.len();
            v[n / 2..].reverse();
        }
    }
}

fn shapes() -> impl Strategy<Value = Shape> {
    select(vec![
        Shape::Random,
        Shape::Random,
        Shape::Sorted,
        Shape::Reversed,
        Shape::AllEqual,
        Shape::FewDistinct,
        Shape::OrganPipe,
    ])
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..=40, 3 => 41usize..=600, 1 => 601usize..=4100]
}

/// Keys: mostly arbitrary values, some extremes, in one of the shapes.
fn keys_of<K: TestKey>(any: impl Strategy<Value = K> + Clone + 'static) -> impl Strategy<Value = Vec<K>> {
    let elem = prop_oneof![3 => any, 1 => select(K::specials())];
    (lengths(), shapes()).prop_flat_map(move |(n, s)| {
        proptest::collection::vec(elem.clone(), n).prop_map(move |mut v| {
            shape(&mut v, s);
            v
        })
    })
}

fn bits<K: TestKey>(v: &[K]) -> Vec<u64> {
    v.iter().map(|k| k.bits()).collect()
}

/// Every network on every available `Isa` gives the reference order, bit for bit.
fn check_keys<K: TestKey>(input: &[K]) -> Result<(), TestCaseError> {
    let mut expected = input.to_vec();
    K::reference(&mut expected);
    for alg in ALGS {
        for isa in Isa::available() {
            let mut got = input.to_vec();
            sort_keys(alg, isa, &mut got);
            prop_assert_eq!(bits(&got), bits(&expected), "{:?} on {} (n = {})", alg, isa, input.len());
        }
    }
    Ok(())
}

/// Pairs: keys sorted as the reference, the multiset of pairs kept, and every `Isa`
/// giving exactly the portable result (equal keys included).
fn check_pairs<K: TestKey, V: bytemuck::Pod + std::fmt::Debug>(
    keys: &[K],
    vals: &[V],
) -> Result<(), TestCaseError> {
    let vbits = |v: &[V]| -> Vec<Vec<u8>> { v.iter().map(|x| bytemuck::bytes_of(x).to_vec()).collect() };
    let mut expected_keys = keys.to_vec();
    K::reference(&mut expected_keys);
    let mut pairs: Vec<(u64, Vec<u8>)> = bits(keys).into_iter().zip(vbits(vals)).collect();
    pairs.sort();
    for alg in ALGS {
        let mut first: Option<(Vec<u64>, Vec<Vec<u8>>)> = None;
        for isa in Isa::available() {
            let (mut k, mut v) = (keys.to_vec(), vals.to_vec());
            sort_pairs(alg, isa, &mut k, &mut v);
            prop_assert_eq!(bits(&k), bits(&expected_keys), "{:?} on {}: keys", alg, isa);
            let mut got: Vec<(u64, Vec<u8>)> = bits(&k).into_iter().zip(vbits(&v)).collect();
            let result = (bits(&k), vbits(&v));
            got.sort();
            prop_assert_eq!(&got, &pairs, "{:?} on {}: pairs", alg, isa);
            match &first {
                None => first = Some(result),
                Some(f) => {
                    prop_assert_eq!(f, &result, "{:?} on {} differs from the portable result", alg, isa)
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn sorted_keys_match_std_u32(v in keys_of(any::<u32>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_u32_small_range(v in keys_of(0u32..20)) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_u16(v in keys_of(any::<u16>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_i32(v in keys_of(any::<i32>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_u64(v in keys_of(any::<u64>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_i64(v in keys_of(any::<i64>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_std_usize(v in keys_of(any::<usize>())) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_total_cmp_f32(v in keys_of(any::<u32>().prop_map(f32::from_bits))) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_total_cmp_f64(v in keys_of(any::<u64>().prop_map(f64::from_bits))) { check_keys(&v)?; }
    #[test]
    fn sorted_keys_match_total_cmp_f64_numbers(v in keys_of(-10.0f64..10.0)) { check_keys(&v)?; }

    #[test]
    fn pairs_u32_u32_keep_pairs_and_agree(
        (k, v) in keys_of(0u32..50).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<u32>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u16_f64_keep_pairs_and_agree(
        (k, v) in keys_of(0u16..50).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<f64>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u16_u32_keep_pairs_and_agree(
        (k, v) in keys_of(any::<u16>()).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<u32>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u32_f32_keep_pairs_and_agree(
        (k, v) in keys_of(any::<u32>()).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<f32>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u32_f64_keep_pairs_and_agree(
        (k, v) in keys_of(0u32..50).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<f64>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u64_f64_keep_pairs_and_agree(
        (k, v) in keys_of(0u64..50).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<f64>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_u64_u32_keep_pairs_and_agree(
        (k, v) in keys_of(any::<u64>()).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<u32>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_f32_i64_keep_pairs_and_agree(
        (k, v) in keys_of(any::<u32>().prop_map(f32::from_bits)).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<i64>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_f64_u32_keep_pairs_and_agree(
        (k, v) in keys_of(any::<u64>().prop_map(f64::from_bits)).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<u32>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_with_odd_sized_values_keep_pairs_and_agree(
        (k, v) in keys_of(0i32..20).prop_flat_map(|k| { let n = k.len(); (Just(k), proptest::collection::vec(any::<[u8; 3]>(), n)) })
    ) { check_pairs(&k, &v)?; }
    #[test]
    fn pairs_with_u16_and_u128_values_keep_pairs_and_agree(
        (k, v, w) in keys_of(0u64..20).prop_flat_map(|k| {
            let n = k.len();
            (Just(k), proptest::collection::vec(any::<u16>(), n), proptest::collection::vec(any::<u128>(), n))
        })
    ) { check_pairs(&k, &v)?; check_pairs(&k, &w)?; }
}

/// A small deterministic generator for the exhaustive length sweeps.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every length up to `top`, and the lengths around the larger powers of two: the
/// boundary cases of the virtual padding, of partial registers and of the register
/// blocks (at most 256 entries, so `top` past 512 covers two blocks and a partial one).
fn sweep_lengths(top: usize) -> Vec<usize> {
    let mut lens: Vec<usize> = (0..=top).collect();
    for p in [1024usize, 2048, 4096] {
        lens.extend([p - 1, p, p + 1, p + 17, p + p / 2]);
    }
    lens
}

#[test]
fn sorted_keys_match_std_at_every_length() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    // Keys: blocks of up to 256 (AVX-512) on x86, 64 (NEON) on AArch64.
    let top = if cfg!(target_arch = "x86_64") { 600 } else { 200 };
    for n in sweep_lengths(top) {
        let small: Vec<u32> = (0..n).map(|_| (rng.next() % 64) as u32).collect();
        let wide: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let floats: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next() as u32)).collect();
        check_keys(&small).unwrap();
        check_keys(&wide).unwrap();
        check_keys(&floats).unwrap();
    }
}

#[test]
fn pairs_match_at_every_length() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    // Pairs: blocks of up to 128 (AVX-512) on x86, 32 (NEON) on AArch64.
    let top = if cfg!(target_arch = "x86_64") { 300 } else { 100 };
    for n in sweep_lengths(top) {
        let keys: Vec<u32> = (0..n).map(|_| (rng.next() % 16) as u32).collect();
        let v32: Vec<u32> = (0..n as u32).collect();
        let v64: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let keys64: Vec<u64> = keys.iter().map(|&k| k as u64 * 0x1_0000_0001).collect();
        check_pairs(&keys, &v32).unwrap();
        check_pairs(&keys, &v64).unwrap();
        check_pairs(&keys64, &v32).unwrap();
        check_pairs(&keys64, &v64).unwrap();
    }
}

#[test]
fn pairs_with_distinct_keys_give_the_unique_sort() {
    // Row permutation by length (thesis 4.5.1), made distinct: key = -(len * 8 + row).
    let lens = [3i64, 5, 2, 2, 1, 5];
    let mut keys: Vec<i64> = lens.iter().enumerate().map(|(r, &l)| -(l * 8 + r as i64)).collect();
    let mut rows: Vec<u32> = (0..6).collect();
    for isa in Isa::available() {
        let (mut k, mut r) = (keys.clone(), rows.clone());
        bitonic_sort_pairs(Exec::from(isa), &mut k, &mut r).unwrap();
        assert_eq!(r, [5, 1, 0, 3, 2, 4], "{isa}");
        let (mut k, mut r) = (keys.clone(), rows.clone());
        odd_even_sort_pairs(Exec::from(isa), &mut k, &mut r).unwrap();
        assert_eq!(r, [5, 1, 0, 3, 2, 4], "{isa}");
    }
    bitonic_sort_pairs(Exec::new(), &mut keys, &mut rows).unwrap();
    assert_eq!(rows, [5, 1, 0, 3, 2, 4]);
}

#[test]
fn detected_forms_sort() {
    let mut a = [5u32, 1, 4, 1, 3];
    bitonic_sort(Exec::new(), &mut a).unwrap();
    assert_eq!(a, [1, 1, 3, 4, 5]);
    let mut b = [2.5f64, -0.0, f64::NAN, 0.0, f64::NEG_INFINITY];
    odd_even_sort(Exec::new(), &mut b).unwrap();
    assert_eq!(b.map(f64::to_bits), [f64::NEG_INFINITY, -0.0, 0.0, 2.5, f64::NAN].map(f64::to_bits));
    let (mut k, mut v) = ([3i32, -1, 2], [30u64, 10, 20]);
    odd_even_sort_pairs(Exec::new(), &mut k, &mut v).unwrap();
    assert_eq!((k, v), ([-1, 2, 3], [10, 20, 30]));
}

#[test]
fn mismatched_lengths_are_an_error_and_touch_nothing() {
    let mut k = [3u32, 2, 1];
    let mut v = [1.0f32, 2.0];
    let e = bitonic_sort_pairs(Exec::new(), &mut k, &mut v).unwrap_err();
    assert_eq!(e, DimError::Length { operand: "vals", expected: 3, got: 2 });
    assert_eq!(odd_even_sort_pairs(Exec::from(Isa::Portable), &mut k, &mut v).unwrap_err(), e);
    assert_eq!((k, v), ([3, 2, 1], [1.0, 2.0]));
}

#[test]
fn unavailable_isa_is_an_error_and_touches_nothing() {
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let mut k = [3u64, 2, 1];
        let mut v = [1u32, 2, 3];
        let want = Err(DimError::IsaUnavailable { isa });
        assert_eq!(bitonic_sort(Exec::from(isa), &mut k), want);
        assert_eq!(odd_even_sort(Exec::from(isa), &mut k), want);
        assert_eq!(bitonic_sort_pairs(Exec::from(isa), &mut k, &mut v), want);
        assert_eq!(odd_even_sort_pairs(Exec::from(isa), &mut k, &mut v), want);
        assert_eq!((k, v), ([3, 2, 1], [1, 2, 3]));
    }
}

#[test]
fn empty_and_single_inputs_are_fine() {
    for isa in Isa::available() {
        let mut e: [f32; 0] = [];
        bitonic_sort(Exec::from(isa), &mut e).unwrap();
        let mut one = [f64::NAN];
        odd_even_sort(Exec::from(isa), &mut one).unwrap();
        assert!(one[0].is_nan());
        let (mut k, mut v) = ([7u32], [9u8]);
        bitonic_sort_pairs(Exec::from(isa), &mut k, &mut v).unwrap();
        assert_eq!((k, v), ([7], [9]));
    }
}
