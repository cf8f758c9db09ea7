//! The peer suite's `web_like` matrix (`benches/peers/gen_matrices.py`, webbase-1M),
//! generated in Rust for the CSR5 SpMM bench and example.

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A web-crawl-like `n × n` matrix (as the peer suite's `web_like`, webbase-1M): row
/// lengths Pareto(1.3) capped at 5000, a tenth of the rows empty, 60% of the columns near
/// the row (a geometric offset of mean 50), the rest skewed towards popular columns, and
/// four rows of `n / 40` to `n / 4` entries.
pub fn web_like<T: spblas::Scalar>(n: usize) -> spblas::CsrOwned<T, u32> {
    let mut state = 0x5eed_u64;
    let mut unit = move || {
        state = splitmix(state);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let long = [n / 40, n / 20, n / 10, n / 4];
    let mut t = Vec::new();
    for i in 0..n {
        let mut len = (unit().max(1e-12).powf(-1.0 / 1.3) as usize).min(5000);
        if unit() < 0.1 {
            len = 0;
        }
        if let Some(p) = (0..4).find(|&p| i == (p * 2 + 1) * n / 9) {
            len = long[p];
        }
        for _ in 0..len.min(n) {
            let j = if unit() < 0.6 {
                let d = (-50.0 * unit().max(1e-12).ln()) as i64;
                let j = i as i64 + if unit() < 0.5 { -d } else { d };
                j.rem_euclid(n as i64) as usize
            } else {
                splitmix((n as f64 * unit().powi(3)) as u64) as usize % n
            };
            t.push((i, j, T::from_f64(1.0 + (j % 7) as f64 * 0.25)));
        }
    }
    spblas::CsrOwned::from_triplets(n, n, &t).unwrap()
}
