//! The thresholds the kernels steer by, as one value to read (ARCHITECTURE.md,
//! conventions): tests and benchmarks that must cross a threshold (a matrix one entry
//! past a segmented-sum block, a SpGEMM row one candidate past a bin) read it here
//! instead of copying the number. The values are measured choices, not promises: they
//! may change in any release, and nothing sets them.

use crate::level3::RowMethod;

/// The crate's tuning thresholds ([`TUNING`]). Each field says which kernel reads it; the
/// reasons are on the constants it mirrors, in the kernels' modules, and the measurements
/// in `benches/records/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tuning {
    /// Entries per block of [`CsrMethod::SegmentedSum`](crate::CsrMethod::SegmentedSum).
    pub segment_block: usize,
    /// Entries per tile of
    /// [`CsrMethod::SpeculativeSegmentedSum`](crate::CsrMethod::SpeculativeSegmentedSum).
    pub speculative_tile: usize,
    /// Rows plus entries per piece of [`CsrMethod::MergePath`](crate::CsrMethod::MergePath)
    /// on one thread.
    pub merge_path_piece: usize,
    /// Bytes of `x` one column panel of
    /// [`SpmvChoice::Csr5Panels`](crate::SpmvChoice::Csr5Panels) spans in
    /// [`SpmvChoice::choose`](crate::SpmvChoice::choose) (its columns: this over the
    /// size of a value).
    pub panel_bytes: usize,
    /// The fewest entries per panel a row needs to count toward the panel rule (AVX2).
    pub panel_min_row: usize,
    /// [`Tuning::panel_min_row`] on AVX-512.
    pub panel_min_row_avx512: usize,
    /// Entries the panel rule samples by position.
    pub panel_samples: usize,
    /// Candidate entries per merge path piece of
    /// [`AddMethod::Merge`](crate::level1::AddMethod::Merge) above which the sum is cut.
    pub add_merge_piece: usize,
    /// Output bytes from which the x86 scans (`dst` not `src`) and the copying CSR5
    /// conversions write with streaming stores.
    pub stream_min_bytes: usize,
    /// Upper bound (candidate products) up to which a SpGEMM row is
    /// [`Bin::Short`](crate::level3::Bin::Short).
    pub spgemm_short_max: usize,
    /// Upper bound up to which a SpGEMM row is [`Bin::Medium`](crate::level3::Bin::Medium).
    pub spgemm_medium_max: usize,
    /// The method of short rows.
    pub spgemm_short_method: RowMethod,
    /// The method of short rows whose referenced rows of `B` span more than
    /// [`Tuning::spgemm_short_spa_span`] columns.
    pub spgemm_short_spread_method: RowMethod,
    /// The median span (columns) above which short rows take the spread method.
    pub spgemm_short_spa_span: usize,
    /// The method of medium rows (the SPA where the referenced rows span no more columns
    /// than the bound).
    pub spgemm_medium_method: RowMethod,
    /// The method of long rows.
    pub spgemm_long_method: RowMethod,
    /// The SPA sorts its columns instead of scanning its marker words above this many
    /// words per distinct column.
    pub spa_sort_ratio: usize,
    /// The SPA sorts up to this many columns by insertion.
    pub spa_insertion_max: usize,
    /// The bitonic ESC sorts rows of up to this many candidates by insertion where the
    /// register ESC does not run.
    pub esc_insertion_max: usize,
    /// The factor `(numerator, denominator)` by which the owned SpGEMM grows its output
    /// arrays when a row does not fit.
    pub spgemm_growth: (usize, usize),
    /// Rows plus entries below which a kernel asked for
    /// [`Exec::threads`](crate::Exec::threads)`(0)` always runs on the calling thread; above
    /// it, the threshold measured on the first such call (a serial SpMV against the
    /// pool's wake-up), at most 64 times this.
    pub serial_work: usize,
    /// Rows plus entries (times right-hand sides) of a level below which the threaded
    /// [`TrsvMethod::LevelSet`](crate::level2::TrsvMethod::LevelSet) solves it on the calling
    /// thread; each task gets at least this much.
    pub trsv_level_work: usize,
}

/// The thresholds of this build.
pub const TUNING: Tuning = Tuning {
    segment_block: crate::level2::csr::SEGMENT_BLOCK,
    speculative_tile: crate::level2::csr::SPECULATIVE_TILE,
    merge_path_piece: crate::level2::csr::MERGE_PATH_PIECE,
    panel_bytes: crate::level2::plan::PANEL_BYTES,
    panel_min_row: crate::level2::plan::PANEL_MIN_ROW,
    panel_min_row_avx512: crate::level2::plan::PANEL_MIN_ROW_AVX512,
    panel_samples: crate::level2::plan::PANEL_SAMPLES,
    add_merge_piece: crate::level1::add::MERGE_PIECE,
    stream_min_bytes: crate::arch::generic::scan::STREAM_MIN_BYTES,
    spgemm_short_max: crate::level3::stages::SHORT_MAX,
    spgemm_medium_max: crate::level3::stages::MEDIUM_MAX,
    spgemm_short_method: crate::level3::stages::SHORT_METHOD,
    spgemm_short_spread_method: crate::level3::stages::SHORT_SPREAD_METHOD,
    spgemm_short_spa_span: crate::level3::stages::SHORT_SPA_SPAN,
    spgemm_medium_method: crate::level3::stages::MEDIUM_METHOD,
    spgemm_long_method: crate::level3::stages::LONG_METHOD,
    spa_sort_ratio: crate::level3::rows::SPA_SORT_RATIO,
    spa_insertion_max: crate::level3::rows::SPA_INSERTION_MAX,
    esc_insertion_max: crate::level3::rows::ESC_INSERTION_MAX,
    spgemm_growth: crate::level3::stages::GROWTH,
    serial_work: SERIAL_WORK,
    trsv_level_work: crate::level2::trsv::LEVEL_WORK,
};

/// Rows plus entries below which a threaded kernel asked for `threads(0)` runs on the
/// calling thread, whatever the measured threshold (`parallel::serial_work`): a fork and
/// join on a pool costs at least as much as a serial SpMV of this size
/// (`benches/records/overhead-*.md`).
pub(crate) const SERIAL_WORK: usize = 1 << 15;
