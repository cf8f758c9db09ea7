//! Target `canonical`: canonical CSR from triplets in any order, without an allocator.
//!
//! Arbitrary triplets (duplicates, any order, sometimes outside the shape), dimensions
//! (sometimes at `u32::MAX` and its neighbours) and buffer lengths (sometimes short) go
//! to `Csr::from_triplets`, `Coo::to_canonical_csr`, `CsrOwned::from_triplets` and
//! `CsrHeapless::from_triplets` / `from_coo`. Each either returns the error the
//! arguments call for, its buffers untouched, or a canonical matrix (it passes
//! `Csr::new` as `RowOrder::Canonical`) equal, bit for bit, to a `BTreeMap` reference
//! that adds each cell's values in input order; bytes past the prefixes are untouched.
//! Values include `1e16`, signed zeros and infinities, whose sums depend on the order.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use spblas::{Coo, Csr, CsrHeapless, CsrOwned, FormatError, RowOrder};

use crate::{Dim, Idx, MAX_DIM, same_bits};

/// A value: mostly a small integer, sometimes one whose sums depend on their order.
#[derive(Clone, Copy, Debug)]
pub struct Value(pub f64);

impl<'a> Arbitrary<'a> for Value {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        const ODD: [f64; 8] = [1e16, -1e16, -0.0, 0.1, 1e-300, f64::MAX, f64::INFINITY, f64::NEG_INFINITY];
        let b = u8::arbitrary(u)?;
        Ok(Value(if b >= 0xE0 { ODD[usize::from(b & 7)] } else { f64::from(b as i8 % 16) }))
    }
}

#[derive(Debug, Arbitrary)]
pub struct Input {
    pub nrows: Dim,
    pub ncols: Dim,
    /// Whether the indices are taken modulo the shape (then all inside it).
    pub wrap: bool,
    /// How each buffer's length (`row_ptr`, `col_idx`, `vals`) differs from the need.
    pub slack: [i8; 3],
    pub entries: Vec<(Idx, Idx, Value)>,
}

/// Room of the fixed-capacity matrix: `MAX_DIM` rows, 256 input entries.
type Fixed = CsrHeapless<f64, u32, { MAX_DIM + 1 }, 256>;

/// Marks the untouched parts of the buffers.
const MARK: u32 = 0xDEAD;

/// Runs the target; returns the number of conversions that succeeded plus the distinct
/// entries found (the seed generator keeps inputs with distinct positive counts).
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let (m, n) = (input.nrows.0, input.ncols.0);
    let t: Vec<(usize, usize, f64)> = input
        .entries
        .iter()
        .map(|&(r, c, v)| {
            let (r, c) = (r.0 as usize, c.0 as usize);
            if input.wrap && m > 0 && n > 0 { (r % m, c % n, v.0) } else { (r, c, v.0) }
        })
        .collect();
    let nnz = t.len();
    // Buffer lengths: what the arguments need, one in eight short by 1 to 4, the others
    // up to 2 longer; a huge `nrows` meets a `row_ptr` of a small shape's length.
    let len = |need: usize, slack: i8| {
        let base = need.min(1 << 12);
        if slack < -96 {
            base.saturating_sub(usize::from(slack as u8 & 3) + 1)
        } else {
            base + usize::from(slack as u8 % 3)
        }
    };
    let lens = [len(m.saturating_add(1), input.slack[0]), len(nnz, input.slack[1]), len(nnz, input.slack[2])];
    let (mut rp, mut ci, mut v) = (vec![MARK; lens[0]], vec![MARK; lens[1]], vec![f64::NAN; lens[2]]);

    let expected = expected_error(m, n, &t, lens);
    let got = Csr::from_triplets(m, n, &t, &mut rp, &mut ci, &mut v).map(|a| {
        check_against_reference(&a, m, n, &t);
        a.nnz()
    });
    let mut score = 0;
    match (got, expected) {
        (Ok(k), None) => {
            // Past the prefixes: untouched.
            assert!(rp[m + 1..].iter().all(|&x| x == MARK), "row_ptr written past nrows + 1");
            assert!(ci[nnz..].iter().all(|&x| x == MARK), "col_idx written past nnz");
            assert!(v[nnz..].iter().all(|x| x.is_nan()), "vals written past nnz");
            assert!(k <= nnz);
            score += 1 + k;
        }
        (Err(e), Some(want)) => {
            assert_eq!(e, want, "wrong error");
            assert!(rp.iter().chain(&ci).all(|&x| x == MARK), "indices written on error {e:?}");
            assert!(v.iter().all(|x| x.is_nan()), "values written on error {e:?}");
        }
        (got, want) => panic!("Csr::from_triplets gave {got:?}, expected error {want:?}"),
    }

    // The owned and fixed-capacity builders, on shapes small enough to allocate.
    if m <= MAX_DIM && n <= MAX_DIM {
        let owned = CsrOwned::<f64, u32>::from_triplets(m, n, &t);
        let bounds = bounds_error(m, n, &t);
        match &owned {
            Ok(a) => {
                assert!(bounds.is_none());
                check_against_reference(&a.view(), m, n, &t);
                score += 1;
            }
            Err(e) => assert_eq!(Some(*e), bounds, "CsrOwned::from_triplets"),
        }
        match Fixed::from_triplets(m, n, &t) {
            Ok(a) => {
                check_against_reference(&a.view(), m, n, &t);
                assert!(nnz <= 256);
            }
            Err(e) if nnz > 256 => {
                assert_eq!(e, FormatError::BufferTooSmall { array: "col_idx", needed: nnz, got: 256 })
            }
            Err(e) => assert_eq!(Some(e), bounds, "CsrHeapless::from_triplets"),
        }
        // The same entries as COO, where they are inside the shape.
        if bounds.is_none() {
            let r: Vec<u32> = t.iter().map(|e| e.0 as u32).collect();
            let c: Vec<u32> = t.iter().map(|e| e.1 as u32).collect();
            let x: Vec<f64> = t.iter().map(|e| e.2).collect();
            let coo = Coo::new(m, n, &r, &c, &x).expect("triplets inside the shape make a COO");
            let (mut rp, mut ci, mut v) = (vec![MARK; lens[0]], vec![MARK; lens[1]], vec![f64::NAN; lens[2]]);
            match coo.to_canonical_csr(&mut rp, &mut ci, &mut v) {
                Ok(a) => {
                    check_against_reference(&a, m, n, &t);
                    score += 1;
                }
                Err(e) => {
                    assert!(matches!(e, FormatError::BufferTooSmall { .. }), "{e:?}");
                    assert_eq!(Some(e), expected_error(m, n, &t, lens));
                    assert!(rp.iter().chain(&ci).all(|&x| x == MARK) && v.iter().all(|x| x.is_nan()));
                }
            }
            if let Ok(a) = Fixed::from_coo(&coo) {
                check_against_reference(&a.view(), m, n, &t);
            } else {
                assert!(nnz > 256);
            }
        }
    }
    score
}

/// The error the arguments call for, in the documented order: dimensions, buffers,
/// then the first triplet outside the shape.
fn expected_error(m: usize, n: usize, t: &[(usize, usize, f64)], lens: [usize; 3]) -> Option<FormatError> {
    let max = u32::MAX as usize;
    if m >= max {
        return Some(FormatError::TooLarge { what: "nrows", value: m, max: max - 1 });
    }
    if n >= max {
        return Some(FormatError::TooLarge { what: "ncols", value: n, max: max - 1 });
    }
    for (array, need, got) in
        [("row_ptr", m + 1, lens[0]), ("col_idx", t.len(), lens[1]), ("vals", t.len(), lens[2])]
    {
        if got < need {
            return Some(FormatError::BufferTooSmall { array, needed: need, got });
        }
    }
    bounds_error(m, n, t)
}

/// The first triplet outside the shape, row checked first.
fn bounds_error(m: usize, n: usize, t: &[(usize, usize, f64)]) -> Option<FormatError> {
    t.iter().enumerate().find_map(|(position, &(r, c, _))| {
        if r >= m {
            Some(FormatError::RowOutOfBounds { position, row: r, nrows: m })
        } else if c >= n {
            Some(FormatError::ColumnOutOfBounds { row: r, position, col: c, ncols: n })
        } else {
            None
        }
    })
}

/// `a` is the canonical matrix of `t`: valid, strictly increasing rows, and each cell's
/// value the sum of its triplets' values in input order, bit for bit.
fn check_against_reference(a: &Csr<'_, f64, u32>, m: usize, n: usize, t: &[(usize, usize, f64)]) {
    let again = Csr::new(m, n, a.row_ptr(), a.col_idx(), a.vals()).expect("a valid CSR");
    assert_eq!(again.row_order(), RowOrder::Canonical);
    assert_eq!(a.row_order(), RowOrder::Canonical);
    let mut cells: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for &(r, c, v) in t {
        cells.entry((r, c)).and_modify(|x| *x += v).or_insert(v);
    }
    let got: Vec<(usize, usize)> = a.iter().map(|(i, j, _)| (i, j)).collect();
    let want: Vec<(usize, usize)> = cells.keys().copied().collect();
    assert_eq!(got, want, "pattern");
    let got: Vec<f64> = a.iter().map(|e| e.2).collect();
    let want: Vec<f64> = cells.values().copied().collect();
    assert!(same_bits(&got, &want), "values: got {got:?}, want {want:?}");
}
