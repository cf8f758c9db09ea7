//! Target `level1`: sparse vector operations against a `BTreeMap` reference.
//!
//! - `SpVec::new` on arbitrary index arrays: error or a valid vector, never a panic;
//! - `add_scaled_isa` by every `AddMethod` on every available `Isa`, with the workspace
//!   `add_workspace_len` asks for: the union of the indices, values `alpha*x + beta*y`
//!   (exact: small integers), identical for every method and `Isa`; too small a
//!   workspace or output is an error that writes nothing;
//! - the merge method cut by `add_merge_partition` into `add_merge_piece`s;
//! - `dot`, `dot_dense`, `axpy`, `gather`, `scatter`;
//! - the index lists through the sorts and merges, against `slice::sort` and a std merge.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use spblas::Isa;
use spblas::level1::{
    AddMethod, SpVec, add_merge_partition, add_merge_piece, add_scaled, add_workspace_len, axpy, dot,
    dot_dense, gather, scatter,
};
use spblas::primitives::merge::merge;
use spblas::primitives::sort::{bitonic_sort, odd_even_sort};

use crate::{Dim, Idx, Val, same};
use spblas::Exec;

#[derive(Debug, Arbitrary)]
pub struct Input {
    pub n: u16,
    pub alpha: i8,
    pub beta: i8,
    pub parts: u8,
    /// Raw arrays for `SpVec::new` (mostly rejected) with their own dimension.
    pub raw_n: Dim,
    pub raw: Vec<Idx>,
    pub x: Vec<(u16, Val)>,
    pub y: Vec<(u16, Val)>,
}

/// A sorted, duplicate-free sparse vector of dimension `n` from `(index, value)` pairs.
fn build(n: usize, entries: &[(u16, Val)]) -> BTreeMap<u32, f64> {
    let mut m = BTreeMap::new();
    if n > 0 {
        for &(i, v) in entries {
            m.insert(u32::from(i) % n as u32, v.0);
        }
    }
    m
}

/// Runs the target; returns the number of accepted raw vectors plus the outputs' size.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let mut score = 0;
    // Raw arrays: error or a valid vector.
    let raw = crate::idx(&input.raw);
    let raw_vals = vec![1.0f64; raw.len()];
    if let Ok(v) = SpVec::new(input.raw_n.0, &raw, &raw_vals) {
        assert!(raw.windows(2).all(|w| w[0] < w[1]), "SpVec::new accepted unsorted indices");
        assert!(raw.iter().all(|&i| (i as usize) < input.raw_n.0), "SpVec::new accepted an index >= n");
        assert_eq!(v.nnz(), raw.len());
        score += 1;
    }
    let short = vec![1.0f64; raw.len().saturating_sub(1)];
    if !raw.is_empty() {
        assert!(
            SpVec::new(input.raw_n.0, &raw, &short).is_err(),
            "SpVec::new with fewer values than indices"
        );
    }

    let n = usize::from(input.n) % 5000;
    let (mx, my) = (build(n, &input.x), build(n, &input.y));
    let (xi, xv): (Vec<u32>, Vec<f64>) = mx.iter().map(|(&i, &v)| (i, v)).unzip();
    let (yi, yv): (Vec<u32>, Vec<f64>) = my.iter().map(|(&i, &v)| (i, v)).unzip();
    let x = SpVec::new(n, &xi, &xv).expect("sorted unique indices below n");
    let y = SpVec::new(n, &yi, &yv).expect("sorted unique indices below n");
    let (alpha, beta) = (f64::from(input.alpha % 5), f64::from(input.beta % 5));

    // Reference: the union.
    let mut want: BTreeMap<u32, f64> = BTreeMap::new();
    for (&i, &v) in &mx {
        *want.entry(i).or_insert(0.0) += alpha * v;
    }
    for (&i, &v) in &my {
        let e = want.entry(i).or_insert(0.0);
        *e = if mx.contains_key(&i) { *e + beta * v } else { beta * v };
    }
    let (wi, wv): (Vec<u32>, Vec<f64>) = want.iter().map(|(&i, &v)| (i, v)).unzip();
    let m = xi.len() + yi.len();
    for isa in Isa::available() {
        for method in AddMethod::ALL {
            let mut ws = vec![0.0f64; add_workspace_len::<f64>(method, x.nnz(), y.nnz(), n)];
            let (mut oi, mut ov) = (vec![0u32; m], vec![f64::NAN; m]);
            let got = add_scaled(Exec::from(isa), alpha, x, beta, y, &mut oi, &mut ov, method, &mut ws)
                .unwrap_or_else(|e| panic!("add {method:?} on {isa}: {e}"));
            assert_eq!(&oi[..got], &wi[..], "add {method:?} on {isa}: indices");
            assert!(same(&ov[..got], &wv), "add {method:?} on {isa}: {:?} != {wv:?}", &ov[..got]);
            // Too small an output or workspace: an error, nothing written.
            if m > 0 {
                let (mut oi2, mut ov2) = (vec![7u32; m - 1], vec![7.0f64; m - 1]);
                assert!(
                    add_scaled(Exec::from(isa), alpha, x, beta, y, &mut oi2, &mut ov2, method, &mut ws)
                        .is_err()
                );
                assert!(oi2.iter().all(|&v| v == 7) && ov2.iter().all(|&v| v == 7.0), "add wrote on error");
            }
            if !ws.is_empty() {
                let (mut oi2, mut ov2) = (vec![7u32; m], vec![7.0f64; m]);
                let mut ws2 = vec![0.0f64; ws.len() - 1];
                assert!(
                    add_scaled(Exec::from(isa), alpha, x, beta, y, &mut oi2, &mut ov2, method, &mut ws2)
                        .is_err()
                );
                assert!(oi2.iter().all(|&v| v == 7), "add wrote on a workspace error");
            }
        }
        // Dimension mismatch.
        let other = SpVec::<f64, u32>::empty(n + 1);
        let (mut oi, mut ov) = (vec![0u32; m], vec![0.0; m]);
        assert!(
            add_scaled(Exec::from(isa), alpha, x, beta, other, &mut oi, &mut ov, AddMethod::Merge, &mut [])
                .is_err()
        );
    }

    // Merge method by pieces.
    let parts = usize::from(input.parts) % 7 + 1;
    let mut splits = vec![(0usize, 0usize); parts + 1];
    add_merge_partition(x, y, parts, &mut splits).expect("add_merge_partition");
    let (mut oi, mut ov) = (Vec::new(), Vec::new());
    for w in splits.windows(2) {
        let len = (w[1].0 - w[0].0) + (w[1].1 - w[0].1);
        let (mut pi, mut pv) = (vec![0u32; len], vec![0.0; len]);
        let k = add_merge_piece(alpha, x, beta, y, w[0], w[1], &mut pi, &mut pv).expect("add_merge_piece");
        oi.extend_from_slice(&pi[..k]);
        ov.extend_from_slice(&pv[..k]);
    }
    assert_eq!(oi, wi, "merge pieces: indices");
    assert!(same(&ov, &wv), "merge pieces: values");

    // dot, dot_dense, axpy, gather, scatter.
    let want_dot: f64 = mx.iter().filter_map(|(i, v)| my.get(i).map(|w| v * w)).sum();
    assert!(dot(x, y).expect("dot") == want_dot, "dot");
    let mut dense_y = vec![0.0f64; n];
    for (&i, &v) in &my {
        dense_y[i as usize] = v;
    }
    assert!(dot_dense(x, &dense_y).expect("dot_dense") == want_dot, "dot_dense");
    assert!(dot_dense(x, &dense_y[..n.saturating_sub(1)]).is_err() || n == 0);
    let mut ax = dense_y.clone();
    axpy(alpha, x, &mut ax).expect("axpy");
    for (i, a) in ax.iter().enumerate() {
        let w = dense_y[i] + mx.get(&(i as u32)).map_or(0.0, |v| alpha * v);
        assert!(*a == w, "axpy at {i}");
    }
    let mut g = vec![f64::NAN; xi.len()];
    gather(&dense_y, &xi, &mut g).expect("gather");
    for (k, &i) in xi.iter().enumerate() {
        assert!(g[k] == dense_y[i as usize], "gather at {k}");
    }
    if !raw.is_empty() {
        let mut g = vec![5.0; raw.len()];
        if gather(&dense_y, &raw, &mut g).is_err() {
            assert!(raw.iter().any(|&i| i as usize >= n), "gather refused in-range indices");
            assert!(g.iter().all(|&v| v == 5.0), "gather wrote on error");
        }
    }
    let mut sc = vec![0.0f64; n];
    scatter(x, &mut sc).expect("scatter");
    for (i, s) in sc.iter().enumerate() {
        assert!(*s == mx.get(&(i as u32)).copied().unwrap_or(0.0), "scatter at {i}");
    }
    assert!(scatter(x, &mut vec![0.0; n + 1]).is_err(), "scatter into a wrong-length y");

    // Index lists through the sorts and merges, against std.
    let mut cat: Vec<u32> = xi.iter().chain(&yi).chain(&raw).copied().collect();
    let mut want_sorted = cat.clone();
    want_sorted.sort_unstable();
    for isa in Isa::available() {
        let mut s = cat.clone();
        bitonic_sort(Exec::from(isa), &mut s).expect("bitonic");
        assert_eq!(s, want_sorted, "bitonic sort on {isa}");
        let mut s = cat.clone();
        odd_even_sort(Exec::from(isa), &mut s).expect("odd-even");
        assert_eq!(s, want_sorted, "odd-even sort on {isa}");
        let mut out = vec![0u32; m];
        merge(Exec::from(isa), &xi, &yi, &mut out).expect("merge");
        let mut w: Vec<u32> = xi.iter().chain(&yi).copied().collect();
        w.sort();
        assert_eq!(out, w, "merge on {isa}");
    }
    cat.clear();
    score + want.len()
}
