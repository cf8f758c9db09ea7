//! Builds the spblas SPIR-V modules from `gpu/kernels` with rust-gpu and writes them to
//! `src/gpu/` (or the folder given as the first argument):
//!
//! ```text
//! cd gpu/builder && cargo run --release [-- OUT_DIR]
//! ```
//!
//! One module per value type: `spmv_f32.spv` (Vulkan 1.2 with subgroup shuffles) and
//! `spmv_f64.spv` (the same and `Float64`), so a device without `shaderFloat64` can load
//! the `f32` module.

use std::path::PathBuf;

use spirv_builder::{Capability, SpirvBuilder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("../../src/gpu"));
    std::fs::create_dir_all(&out)?;
    for (name, features, extra) in [
        ("spmv_f32.spv", vec![], vec![]),
        ("spmv_f64.spv", vec!["f64".to_string()], vec![Capability::Float64]),
    ] {
        let mut builder = SpirvBuilder::new("../kernels", "spirv-unknown-vulkan1.2")
            .release(true)
            .shader_crate_features(features)
            .capability(Capability::GroupNonUniform)
            .capability(Capability::GroupNonUniformShuffle);
        for c in extra {
            builder = builder.capability(c);
        }
        let result = builder.build()?;
        let path = result.module.unwrap_single();
        let dst = out.join(name);
        std::fs::copy(path, &dst)?;
        println!(
            "{} ({} bytes, entry points: {:?})",
            dst.display(),
            std::fs::metadata(&dst)?.len(),
            result.entry_points
        );
    }
    Ok(())
}
