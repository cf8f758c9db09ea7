//! A small Vulkan compute runner (through `ash`) for the `gpu` feature's SPIR-V modules,
//! shared by `tests/gpu.rs` and `examples/gpu.rs`: device-local buffers filled through
//! staging, one descriptor-set layout (`spblas::gpu::BINDINGS`), a pipeline per entry
//! point, and command buffers of dispatches, barriers and timestamps.
//!
//! It is test and benchmark support, not part of the crate: spblas exports the modules
//! and their metadata and leaves the runtime to the caller.
#![allow(dead_code)]

use std::ffi::CString;

use ash::vk;
pub use spblas::gpu::Method;
use spblas::gpu::{BINDINGS, Kernel, SpmvParams};

/// A device buffer.
pub struct Buf {
    buf: vk::Buffer,
    mem: vk::DeviceMemory,
    /// Bytes.
    pub size: u64,
}

/// One step of a command buffer.
#[derive(Clone, Copy)]
pub enum Step<'a> {
    /// `vkCmdDispatch(groups, 1, 1)` of `kernel` with these push constants.
    Dispatch { kernel: Kernel, groups: u32, push: &'a [u8] },
    /// A compute-to-compute memory barrier (shader writes before shader reads/writes).
    Barrier,
    /// A timestamp (after all earlier work of the command buffer).
    Timestamp,
    /// Reads the flush buffer ([`Gpu::set_flush`]) with `read_stream`, evicting the
    /// matrix from the GPU's caches (a read leaves clean lines, so the kernel timed next
    /// pays no write-back), and waits for it before later compute work.
    Flush,
}

/// An open Vulkan device with the spblas pipelines of one value type.
pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    cmd_pool: vk::CommandPool,
    desc_pool: vk::DescriptorPool,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipelines: Vec<(Kernel, vk::Pipeline)>,
    mem_props: vk::PhysicalDeviceMemoryProperties,
    dummy: Option<Buf>,
    flush: Option<Stream>,
    stats: Option<ash::khr::pipeline_executable_properties::Device>,
    /// The device's name.
    pub name: String,
    /// Its subgroup size.
    pub subgroup_size: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f64,
}

/// A `read_stream` over a zeroed buffer: its buffers, descriptor set and dispatch
/// ([`Gpu::stream`]; [`Step::Flush`] runs one).
pub struct Stream {
    vals: Buf,
    y: Buf,
    /// The descriptor set binding `vals` and `y`.
    pub set: vk::DescriptorSet,
    /// Workgroups of the dispatch.
    pub groups: u32,
    /// Its push constants.
    pub push: Vec<u8>,
}

fn check<T>(r: Result<T, vk::Result>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e:?}"))
}

impl Gpu {
    /// Opens the first Vulkan 1.2 device with a compute queue (a discrete GPU first) and
    /// builds the pipelines of `spblas::gpu::spirv::<T>()`. `Err` says why when there is
    /// no Vulkan loader or device, or the device lacks `shaderFloat64` for `f64`.
    pub fn new<T: spblas::Scalar>() -> Result<Gpu, String> {
        let f64_needed = std::mem::size_of::<T>() == 8;
        // SAFETY (all blocks below): plain Vulkan calls on handles this struct created and
        // owns, with create-info structures that outlive each call.
        unsafe {
            let entry = ash::Entry::load().map_err(|e| format!("no Vulkan loader: {e}"))?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
            let instance = check(
                entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None),
                "instance",
            )?;
            let mut devices = check(instance.enumerate_physical_devices(), "devices")?;
            devices.sort_by_key(|&d| {
                let t = instance.get_physical_device_properties(d).device_type;
                if t == vk::PhysicalDeviceType::DISCRETE_GPU { 0 } else { 1 }
            });
            let mut chosen = None;
            for d in devices {
                let props = instance.get_physical_device_properties(d);
                if props.api_version < vk::API_VERSION_1_2 {
                    continue;
                }
                let features = instance.get_physical_device_features(d);
                if f64_needed && features.shader_float64 == 0 {
                    continue;
                }
                let families = instance.get_physical_device_queue_family_properties(d);
                if let Some(q) = families.iter().position(|f| {
                    f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.timestamp_valid_bits > 0
                }) {
                    chosen = Some((d, q as u32, props));
                    break;
                }
            }
            let (pdev, family, props) = chosen
                .ok_or_else(|| "no Vulkan 1.2 device with compute, timestamps (and f64)".to_string())?;
            let name =
                props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
            instance.get_physical_device_properties2(pdev, &mut props2);
            let subgroup_size = subgroup.subgroup_size;
            let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut v12);
            instance.get_physical_device_features2(pdev, &mut f2);
            let vulkan_memory_model = v12.vulkan_memory_model;
            let features = vk::PhysicalDeviceFeatures::default().shader_float64(f64_needed);
            let mut v12 =
                vk::PhysicalDeviceVulkan12Features::default().vulkan_memory_model(vulkan_memory_model != 0);
            // The driver's statistics of each compiled kernel (registers, spills), where
            // the device offers VK_KHR_pipeline_executable_properties.
            let stats_ext = ash::khr::pipeline_executable_properties::NAME;
            let has_stats = check(instance.enumerate_device_extension_properties(pdev), "extensions")?
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(stats_ext));
            let exts = [stats_ext.as_ptr()];
            let mut exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
            let prio = [1.0f32];
            let queues =
                [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&prio)];
            let mut info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_features(&features)
                .push_next(&mut v12);
            if has_stats {
                info = info.enabled_extension_names(&exts).push_next(&mut exec);
            }
            let device = check(instance.create_device(pdev, &info, None), "device")?;
            let stats =
                has_stats.then(|| ash::khr::pipeline_executable_properties::Device::new(&instance, &device));
            let flags = if has_stats {
                vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
            } else {
                vk::PipelineCreateFlags::empty()
            };
            let queue = device.get_device_queue(family, 0);
            let cmd_pool = check(
                device.create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                ),
                "command pool",
            )?;
            let bindings: Vec<_> = BINDINGS
                .iter()
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let set_layout = check(
                device.create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                ),
                "set layout",
            )?;
            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(64 * BINDINGS.len() as u32)];
            let desc_pool = check(
                device.create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(64)
                        .pool_sizes(&sizes)
                        .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET),
                    None,
                ),
                "descriptor pool",
            )?;
            let push = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size(spblas::gpu::PUSH_CONSTANT_BYTES)];
            let layouts = [set_layout];
            let pipeline_layout = check(
                device.create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&push),
                    None,
                ),
                "pipeline layout",
            )?;
            let words = spblas::gpu::spirv::<T>();
            let module = check(
                device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None),
                "module",
            )?;
            let mut pipelines = Vec::new();
            for k in Kernel::ALL {
                let entry_name = CString::new(k.entry_point()).map_err(|e| e.to_string())?;
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(&entry_name);
                let info = [vk::ComputePipelineCreateInfo::default()
                    .flags(flags)
                    .stage(stage)
                    .layout(pipeline_layout)];
                let p = device
                    .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                    .map_err(|(_, e)| format!("pipeline {}: {e:?}", k.entry_point()))?;
                pipelines.push((k, p[0]));
            }
            let mem_props = instance.get_physical_device_memory_properties(pdev);
            let mut gpu = Gpu {
                _entry: entry,
                instance,
                device,
                queue,
                cmd_pool,
                desc_pool,
                set_layout,
                pipeline_layout,
                module,
                pipelines,
                mem_props,
                dummy: None,
                flush: None,
                stats,
                name,
                subgroup_size,
                timestamp_period: props.limits.timestamp_period as f64,
            };
            gpu.dummy = Some(gpu.zeroed(16)?);
            Ok(gpu)
        }
    }

    /// Sets the buffer [`Step::Flush`] reads: `bytes` of device memory (0: none), a few
    /// times the GPU's last-level cache.
    pub fn set_flush<T: spblas::Scalar>(&mut self, bytes: u64) -> Result<(), String> {
        if let Some(f) = self.flush.take() {
            self.free_stream(f);
        }
        if bytes > 0 {
            self.flush = Some(self.stream::<T>(bytes)?);
        }
        Ok(())
    }

    /// A `read_stream` of `bytes` bytes of zeroed device memory, as values of `T`.
    pub fn stream<T: spblas::Scalar>(&self, bytes: u64) -> Result<Stream, String> {
        let n = bytes as usize / std::mem::size_of::<T>();
        let p = SpmvParams::<T>::read_stream(n).map_err(|e| e.to_string())?;
        let groups = Kernel::ReadStream.groups(&p);
        let vals = self.zeroed(bytes)?;
        let y = self.zeroed(
            u64::from(groups)
                * u64::from(Kernel::ReadStream.workgroup_size())
                * std::mem::size_of::<T>() as u64,
        )?;
        let set = self.descriptor_set(&[(2, &vals), (4, &y)])?;
        let push = p.push_constants().as_bytes().to_vec();
        Ok(Stream { vals, y, set, groups, push })
    }

    /// Frees a [`Stream`].
    pub fn free_stream(&self, s: Stream) {
        self.free_set(s.set);
        self.free(s.vals);
        self.free(s.y);
    }

    /// The driver's statistics of `kernel`'s compiled code (name and value, e.g. its
    /// registers), or none where the device does not report them.
    pub fn statistics(&self, kernel: Kernel) -> Vec<(String, String)> {
        let (Some(ext), Some(&(_, pipeline))) =
            (&self.stats, self.pipelines.iter().find(|(k, _)| *k == kernel))
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // SAFETY: see `new`; the pipeline was created with CAPTURE_STATISTICS_KHR.
        unsafe {
            let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
            let n = ext.get_pipeline_executable_properties(&info).map(|v| v.len()).unwrap_or(0);
            for i in 0..n as u32 {
                let e = vk::PipelineExecutableInfoKHR::default().pipeline(pipeline).executable_index(i);
                for s in ext.get_pipeline_executable_statistics(&e).unwrap_or_default() {
                    let name =
                        s.name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                    let value = match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 != 0).to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        _ => format!("{:.3}", s.value.f64),
                    };
                    out.push((name, value));
                }
            }
        }
        out
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.mem_props.memory_type_count).find(|&i| {
            bits & (1 << i) != 0 && self.mem_props.memory_types[i as usize].property_flags.contains(flags)
        })
    }

    fn buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<Buf, String> {
        let size = size.max(16);
        // SAFETY: see `new`.
        unsafe {
            let buf = check(
                self.device.create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                ),
                "buffer",
            )?;
            let req = self.device.get_buffer_memory_requirements(buf);
            let ty = self.memory_type(req.memory_type_bits, flags).ok_or("no suitable memory type")?;
            let mem = check(
                self.device.allocate_memory(
                    &vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty),
                    None,
                ),
                "memory",
            )?;
            check(self.device.bind_buffer_memory(buf, mem, 0), "bind")?;
            Ok(Buf { buf, mem, size })
        }
    }

    fn staging(&self, size: u64) -> Result<Buf, String> {
        self.buffer(
            size,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )
    }

    fn device_buffer(&self, size: u64) -> Result<Buf, String> {
        self.buffer(
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )
    }

    /// Runs `record` in a one-time command buffer and waits for it.
    fn once(&self, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), String> {
        // SAFETY: see `new`.
        unsafe {
            let cb = check(
                self.device.allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.cmd_pool)
                        .command_buffer_count(1),
                ),
                "command buffer",
            )?[0];
            check(self.device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()), "begin")?;
            record(cb);
            check(self.device.end_command_buffer(cb), "end")?;
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            check(self.device.queue_submit(self.queue, &submit, vk::Fence::null()), "submit")?;
            check(self.device.queue_wait_idle(self.queue), "wait")?;
            self.device.free_command_buffers(self.cmd_pool, &cbs);
            Ok(())
        }
    }

    /// A device-local buffer holding `data`.
    pub fn upload<P: bytemuck::Pod>(&self, data: &[P]) -> Result<Buf, String> {
        let dst = self.device_buffer(std::mem::size_of_val(data) as u64)?;
        self.write(&dst, data)?;
        Ok(dst)
    }

    /// Copies `data` to the start of `dst` (which holds at least as many bytes).
    pub fn write<P: bytemuck::Pod>(&self, dst: &Buf, data: &[P]) -> Result<(), String> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return Ok(());
        }
        let stage = self.staging(bytes.len() as u64)?;
        // SAFETY: see `new`; the mapping covers `stage.size >= bytes.len()` bytes.
        unsafe {
            let p =
                check(self.device.map_memory(stage.mem, 0, stage.size, vk::MemoryMapFlags::empty()), "map")?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len());
            self.device.unmap_memory(stage.mem);
        }
        let region = [vk::BufferCopy::default().size(bytes.len() as u64)];
        // SAFETY: see `new`.
        self.once(|cb| unsafe { self.device.cmd_copy_buffer(cb, stage.buf, dst.buf, &region) })?;
        self.free(stage);
        Ok(())
    }

    /// A device-local buffer of `bytes` zero bytes.
    pub fn zeroed(&self, bytes: u64) -> Result<Buf, String> {
        let b = self.device_buffer(bytes)?;
        // SAFETY: see `new`.
        self.once(|cb| unsafe { self.device.cmd_fill_buffer(cb, b.buf, 0, vk::WHOLE_SIZE, 0) })?;
        Ok(b)
    }

    /// The first `n` values of `b`.
    pub fn download<P: bytemuck::Pod>(&self, b: &Buf, n: usize) -> Result<Vec<P>, String> {
        let len = (n * std::mem::size_of::<P>()) as u64;
        let mut out = vec![P::zeroed(); n];
        if n == 0 {
            return Ok(out);
        }
        let stage = self.staging(len)?;
        let region = [vk::BufferCopy::default().size(len)];
        // SAFETY: see `new`.
        self.once(|cb| unsafe { self.device.cmd_copy_buffer(cb, b.buf, stage.buf, &region) })?;
        // SAFETY: see `new`; the mapping covers `len` bytes and `out` holds `len` bytes.
        unsafe {
            let p =
                check(self.device.map_memory(stage.mem, 0, stage.size, vk::MemoryMapFlags::empty()), "map")?;
            std::ptr::copy_nonoverlapping(
                p.cast::<u8>(),
                bytemuck::cast_slice_mut(&mut out).as_mut_ptr(),
                len as usize,
            );
            self.device.unmap_memory(stage.mem);
        }
        self.free(stage);
        Ok(out)
    }

    /// Frees a buffer.
    pub fn free(&self, b: Buf) {
        // SAFETY: see `new`; the queue is idle after every submission of this runner.
        unsafe {
            self.device.destroy_buffer(b.buf, None);
            self.device.free_memory(b.mem, None);
        }
    }

    /// A descriptor set binding `bufs` (binding number, buffer); the other bindings get
    /// a small dummy buffer (the kernels that use them are not run with this set).
    pub fn descriptor_set(&self, bufs: &[(u32, &Buf)]) -> Result<vk::DescriptorSet, String> {
        let dummy = self.dummy.as_ref().ok_or("no dummy buffer")?;
        let layouts = [self.set_layout];
        // SAFETY: see `new`.
        unsafe {
            let set = check(
                self.device.allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(self.desc_pool)
                        .set_layouts(&layouts),
                ),
                "descriptor set",
            )?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = BINDINGS
                .iter()
                .map(|b| {
                    let buf =
                        bufs.iter().find(|(n, _)| *n == b.binding).map(|(_, buf)| *buf).unwrap_or(dummy);
                    [vk::DescriptorBufferInfo::default().buffer(buf.buf).offset(0).range(vk::WHOLE_SIZE)]
                })
                .collect();
            let writes: Vec<_> = BINDINGS
                .iter()
                .zip(&infos)
                .map(|(b, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(b.binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            self.device.update_descriptor_sets(&writes, &[]);
            Ok(set)
        }
    }

    /// Frees a descriptor set.
    pub fn free_set(&self, set: vk::DescriptorSet) {
        // SAFETY: see `new`; the pool was created with FREE_DESCRIPTOR_SET.
        let _ = unsafe { self.device.free_descriptor_sets(self.desc_pool, &[set]) };
    }

    /// Runs `steps` with `set` bound in one command buffer, waits, and returns the
    /// timestamps in nanoseconds.
    pub fn run(&self, set: vk::DescriptorSet, steps: &[Step<'_>]) -> Result<Vec<f64>, String> {
        let stamps = steps.iter().filter(|s| matches!(s, Step::Timestamp)).count() as u32;
        // SAFETY: see `new`.
        unsafe {
            let qp = check(
                self.device.create_query_pool(
                    &vk::QueryPoolCreateInfo::default()
                        .query_type(vk::QueryType::TIMESTAMP)
                        .query_count(stamps.max(1)),
                    None,
                ),
                "query pool",
            )?;
            let sets = [set];
            self.once(|cb| {
                let d = &self.device;
                d.cmd_reset_query_pool(cb, qp, 0, stamps.max(1));
                let bind = |sets: &[vk::DescriptorSet]| {
                    d.cmd_bind_descriptor_sets(
                        cb,
                        vk::PipelineBindPoint::COMPUTE,
                        self.pipeline_layout,
                        0,
                        sets,
                        &[],
                    )
                };
                bind(&sets);
                // Writes of `src` (at `stage`) made visible to compute shader reads and
                // writes.
                let barrier = |src: vk::AccessFlags, stage: vk::PipelineStageFlags| {
                    let mb = [vk::MemoryBarrier::default()
                        .src_access_mask(src)
                        .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)];
                    d.cmd_pipeline_barrier(
                        cb,
                        stage,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::DependencyFlags::empty(),
                        &mb,
                        &[],
                        &[],
                    );
                };
                let mut q = 0;
                for s in steps {
                    match s {
                        Step::Dispatch { kernel, groups, push } => {
                            let p = self.pipelines.iter().find(|(k, _)| k == kernel).map(|(_, p)| *p);
                            if let Some(p) = p {
                                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p);
                                d.cmd_push_constants(
                                    cb,
                                    self.pipeline_layout,
                                    vk::ShaderStageFlags::COMPUTE,
                                    0,
                                    push,
                                );
                                d.cmd_dispatch(cb, *groups, 1, 1);
                            }
                        }
                        Step::Barrier => {
                            barrier(vk::AccessFlags::SHADER_WRITE, vk::PipelineStageFlags::COMPUTE_SHADER)
                        }
                        Step::Flush => {
                            if let Some(f) = &self.flush {
                                let p = self.pipelines.iter().find(|(k, _)| *k == Kernel::ReadStream);
                                if let Some(&(_, p)) = p {
                                    bind(&[f.set]);
                                    d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p);
                                    d.cmd_push_constants(
                                        cb,
                                        self.pipeline_layout,
                                        vk::ShaderStageFlags::COMPUTE,
                                        0,
                                        &f.push,
                                    );
                                    d.cmd_dispatch(cb, f.groups, 1, 1);
                                    barrier(
                                        vk::AccessFlags::SHADER_WRITE,
                                        vk::PipelineStageFlags::COMPUTE_SHADER,
                                    );
                                    bind(&sets);
                                }
                            }
                        }
                        Step::Timestamp => {
                            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, q);
                            q += 1;
                        }
                    }
                }
            })?;
            let mut ticks = vec![0u64; stamps as usize];
            if stamps > 0 {
                check(
                    self.device.get_query_pool_results(
                        qp,
                        0,
                        &mut ticks,
                        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                    ),
                    "query results",
                )?;
            }
            self.device.destroy_query_pool(qp, None);
            Ok(ticks.iter().map(|&t| t as f64 * self.timestamp_period).collect())
        }
    }
}

/// The dispatches of one SpMV by `method` with parameters `p` and their push-constant
/// bytes `push`.
pub fn steps<'a, T: spblas::Scalar>(method: Method, p: &SpmvParams<T>, push: &'a [u8]) -> Vec<Step<'a>> {
    method
        .steps()
        .iter()
        .map(|s| match *s {
            spblas::gpu::Step::Dispatch(kernel) => Step::Dispatch { kernel, groups: kernel.groups(p), push },
            spblas::gpu::Step::Barrier => Step::Barrier,
        })
        .collect()
}

/// One SpMV problem on the device: the matrix arrays, `x`, `y` (and `carry` for CSR5),
/// bound in one descriptor set.
pub struct Problem<T> {
    /// The descriptor set binding the arrays.
    pub set: vk::DescriptorSet,
    /// The push constants.
    pub params: SpmvParams<T>,
    bufs: Vec<(u32, Buf)>,
    nrows: usize,
}

impl<T> Problem<T> {
    /// The buffer bound as `y` (binding 4).
    fn y(&self) -> Result<&Buf, String> {
        self.bufs.iter().find(|(n, _)| *n == 4).map(|(_, b)| b).ok_or_else(|| "no y".to_string())
    }
}

impl Gpu {
    fn problem<T: spblas::Scalar>(
        &self,
        arrays: Vec<(u32, Buf)>,
        params: SpmvParams<T>,
        nrows: usize,
    ) -> Result<Problem<T>, String> {
        let refs: Vec<(u32, &Buf)> = arrays.iter().map(|(n, b)| (*n, b)).collect();
        let set = self.descriptor_set(&refs)?;
        Ok(Problem { set, params, bufs: arrays, nrows })
    }

    /// Uploads a CSR matrix (with its row blocks) and `x` and `y` for
    /// `y = alpha * A * x + beta * y`.
    pub fn upload_csr<T: spblas::Scalar>(
        &self,
        a: &spblas::Csr<'_, T, u32>,
        alpha: T,
        x: &[T],
        beta: T,
        y: &[T],
    ) -> Result<Problem<T>, String> {
        let params = SpmvParams::csr(a, alpha, beta).map_err(|e| e.to_string())?;
        let mut arrays = self.upload_spmv(a.row_ptr(), a.col_idx(), a.vals(), x, y)?;
        let mut blocks = vec![0u32; spblas::gpu::row_blocks_len(a)];
        spblas::gpu::row_blocks(a, &mut blocks).map_err(|e| e.to_string())?;
        arrays.push((10, self.upload(&blocks)?));
        self.problem(arrays, params, a.nrows())
    }

    /// Bindings 0–4, shared by CSR and CSR5: `row_ptr`, `col_idx`, `vals`, `x`, `y`.
    fn upload_spmv<T: spblas::Scalar>(
        &self,
        row_ptr: &[u32],
        col_idx: &[u32],
        vals: &[T],
        x: &[T],
        y: &[T],
    ) -> Result<Vec<(u32, Buf)>, String> {
        Ok(vec![
            (0, self.upload(row_ptr)?),
            (1, self.upload(col_idx)?),
            (2, self.upload(vals)?),
            (3, self.upload(x)?),
            (4, self.upload(y)?),
        ])
    }

    /// Uploads a CSR5 matrix (built for the GPU: `spblas::gpu::csr5_layout`) with `x`
    /// and `y`, and a `carry` buffer.
    pub fn upload_csr5<T: spblas::Scalar>(
        &self,
        a: &spblas::Csr5<'_, T, u32>,
        alpha: T,
        x: &[T],
        beta: T,
        y: &[T],
    ) -> Result<Problem<T>, String> {
        let params = SpmvParams::csr5(a, alpha, beta).map_err(|e| e.to_string())?;
        let mut arrays = self.upload_spmv(a.row_ptr(), a.col_idx(), a.vals(), x, y)?;
        arrays.extend([
            (5, self.upload(a.tile_ptr())?),
            (6, self.upload(a.tile_desc())?),
            (7, self.upload(a.empty_offset_ptr())?),
            (8, self.upload(a.empty_offset())?),
            (9, self.zeroed(((a.tiles() + 1) * std::mem::size_of::<T>()) as u64)?),
        ]);
        self.problem(arrays, params, a.nrows())
    }

    /// Runs `method` once on `p` and returns `y`.
    pub fn spmv<T: spblas::Scalar>(&self, method: Method, p: &Problem<T>) -> Result<Vec<T>, String> {
        let push = p.params.push_constants();
        self.run(p.set, &steps(method, &p.params, push.as_bytes()))?;
        self.read_y(p)
    }

    /// Sets `y` to `y0`.
    pub fn write_y<T: spblas::Scalar>(&self, p: &Problem<T>, y0: &[T]) -> Result<(), String> {
        self.write(p.y()?, y0)
    }

    /// `y` as it is now.
    pub fn read_y<T: spblas::Scalar>(&self, p: &Problem<T>) -> Result<Vec<T>, String> {
        let y = p.y()?;
        self.download(y, p.nrows)
    }

    /// Frees a problem's buffers and set.
    pub fn free_problem<T>(&self, p: Problem<T>) {
        self.free_set(p.set);
        for (_, b) in p.bufs {
            self.free(b);
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: see `new`; everything was created by this struct and the queue is idle.
        unsafe {
            let _ = self.device.device_wait_idle();
            if let Some(f) = self.flush.take() {
                self.free_stream(f);
            }
            if let Some(b) = self.dummy.take() {
                self.free(b);
            }
            for (_, p) in &self.pipelines {
                self.device.destroy_pipeline(*p, None);
            }
            self.device.destroy_shader_module(self.module, None);
            self.device.destroy_pipeline_layout(self.pipeline_layout, None);
            self.device.destroy_descriptor_pool(self.desc_pool, None);
            self.device.destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_command_pool(self.cmd_pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
