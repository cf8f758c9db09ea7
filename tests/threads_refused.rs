//! The global rayon pool failed to start (here: its builder's every thread refused, as an
//! OS out of threads refuses them) before any driver ran: every threaded entry point,
//! asked for any number of threads, runs on the calling thread and gives the serial
//! results instead of panicking. A process of its own, since the global pool is built
//! once per process.
#![cfg(all(feature = "parallel", not(target_family = "wasm")))]

use spblas::level2::{SpmvChoice, SpmvConfig, SpmvPlan, spmv_csr};
use spblas::level3::{SpgemmConfig, spgemm};
use spblas::{Csr5Owned, CsrMethod, CsrOwned, Exec, SpMv};

#[test]
fn drivers_run_serially_when_the_global_pool_failed() {
    let refused = rayon::ThreadPoolBuilder::new()
        .spawn_handler(|_| Err(std::io::Error::other("no more threads")))
        .build_global();
    assert!(refused.is_err());
    assert_eq!(spblas::available_threads(), 1);
    // Integer values: every sum exact, so every way of running it gives the same bits.
    let t: Vec<(usize, usize, f64)> = (0..5000)
        .flat_map(|i| (0..1 + i % 9).map(move |k| (i, (i * 7 + k * 13) % 3000, (k % 5) as f64)))
        .collect();
    let a = CsrOwned::<f64, u32>::from_triplets(5000, 3000, &t).unwrap();
    let a = a.view();
    let x: Vec<f64> = (0..a.ncols()).map(|j| (j % 7) as f64).collect();
    let mut want = vec![0.0; a.nrows()];
    a.spmv(Exec::new(), 1.0, &x, 0.0, &mut want).unwrap();
    let c5 = Csr5Owned::from_csr(Exec::new(), &a).unwrap();
    let plan = SpmvPlan::with_config(
        Exec::new(),
        &a,
        SpmvConfig::new().choice(SpmvChoice::Csr5Panels { columns: 700 }),
    )
    .unwrap();
    let tb: Vec<(usize, usize, f64)> =
        (0..3000).flat_map(|k| [(k, k % 400, 1.0), (k, k * 3 % 400, 2.0)]).collect();
    let b = CsrOwned::<f64, u32>::from_triplets(3000, 400, &tb).unwrap();
    let b = b.view();
    let product = spgemm(Exec::new(), SpgemmConfig::new(), &a, &b).unwrap();
    for threads in [0, 2, 7, 64, 50_000, 100_000] {
        let exec = Exec::new().threads(threads);
        for method in CsrMethod::ALL {
            let mut y = vec![f64::NAN; a.nrows()];
            spmv_csr(exec, &a, method, 1.0, &x, 0.0, &mut y).unwrap();
            assert_eq!(y, want, "{method:?} {threads}");
        }
        let mut y = vec![f64::NAN; a.nrows()];
        c5.view().spmv(exec, 1.0, &x, 0.0, &mut y).unwrap();
        assert_eq!(y, want, "csr5 {threads}");
        let mut y = vec![f64::NAN; a.nrows()];
        plan.spmv(exec, 1.0, &x, 0.0, &mut y).unwrap();
        assert_eq!(y, want, "panels {threads}");
        assert_eq!(spgemm(exec, SpgemmConfig::new(), &a, &b).unwrap(), product, "spgemm {threads}");
    }
}
