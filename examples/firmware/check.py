#!/usr/bin/env python3
"""Builds the firmware images, checks their size and stack budgets, and runs them on QEMU.

Size: each probe image's `.text` less the base image's (the same program without the
spblas call) at `opt-level = 3` (profile `release`) and `"z"` (profile `size`).
Stack: the largest frame of any function in each image, from its prologue (`push`,
`vpush`, `sub sp`), and the firmware program's measured peak (painted stack).
Exits non-zero if a budget is exceeded, an image fails its own checks, or QEMU hangs.

Usage: python3 check.py [--record FILE]   (FILE: also write the tables there, as Markdown)
"""
import os
import re
import subprocess
import sys

TARGET = "thumbv7em-none-eabihf"
PROBES = ["base", "csr", "csr5", "csr5_f64", "base_extra", "plan", "triplets"]
# The image each probe is measured against.
BASE = {"plan": "base_extra", "triplets": "base_extra"}
# The probes whose every stack frame must stay within FRAME_BUDGET (the plan may hold
# DIA's block of row sums, 1 KiB in `f32`: see the README).
FRAMED = ["csr", "csr5", "csr5_f64", "triplets"]
# (probe, profile) -> most bytes of `.text` the spblas call may add.
TEXT_BUDGET = {
    ("csr", "release"): 4 << 10,
    ("csr", "size"): 4 << 10,
    ("csr5", "release"): 24 << 10,
    ("csr5", "size"): 16 << 10,
}
FRAME_BUDGET = 1 << 10
QEMU = ["qemu-system-arm", "-machine", "mps2-an386", "-cpu", "cortex-m4", "-nographic",
        "-semihosting-config", "enable=on,target=native", "-kernel"]


def llvm(tool):
    """`tool` from rustup's `llvm-tools` component, else from PATH."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], text=True, capture_output=True).stdout.strip()
    host = next(l.split(": ")[1] for l in subprocess.run(["rustc", "-vV"], text=True, capture_output=True)
                .stdout.splitlines() if l.startswith("host: "))
    path = os.path.join(sysroot, "lib", "rustlib", host, "bin", tool)
    return path if os.path.exists(path) else tool


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def text_size(elf):
    line = sh([llvm("llvm-size"), elf]).splitlines()[1].split()
    return int(line[0])


def frames(elf):
    """The stack frame of each function: bytes its prologue pushes and subtracts."""
    out = sh([llvm("llvm-objdump"), "-d", "--no-show-raw-insn", "-C", elf])
    sizes, name, movs = {}, None, {}
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            name, movs = re.sub(r"::h[0-9a-f]{16}$", "", m.group(1)), {}
            sizes[name] = 0
            continue
        if name is None or "\t" not in line:
            continue
        parts = line.split("\t")
        ins = parts[1].strip() if len(parts) > 1 else ""
        ops = parts[2].strip() if len(parts) > 2 else ""
        if ins in ("push", "push.w", "stmdb"):
            regs = re.findall(r"r\d+|lr|r\d+", ops.split("{")[-1])
            if ins == "stmdb" and not ops.startswith("sp!"):
                continue
            sizes[name] += 4 * len(re.findall(r"\b(?:r\d+|lr|sp|pc)\b", ops.split("{")[-1]))
        elif ins == "vpush":
            lo_hi = re.findall(r"d(\d+)", ops)
            if "-" in ops and len(lo_hi) == 2:
                sizes[name] += 8 * (int(lo_hi[1]) - int(lo_hi[0]) + 1)
            else:
                sizes[name] += 8 * len(lo_hi) + 4 * len(re.findall(r"\bs\d+", ops))
        elif ins in ("movw", "mov.w", "mov") and re.match(r"(r\d+|r12|lr), #", ops):
            reg, imm = ops.split(", #")
            movs[reg] = int(imm, 0)
        elif ins in ("sub", "sub.w", "subw") and (ops.startswith("sp, #") or ops.startswith("sp, sp, ")):
            arg = ops.split(", ")[-1]
            if arg.startswith("#"):
                sizes[name] += int(arg[1:], 0)
            elif arg in movs:
                sizes[name] += movs[arg]
    return sizes


def run(elf, timeout=120):
    try:
        p = subprocess.run(QEMU + [elf], text=True, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stdout + p.stderr


def main():
    record = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
    if record:
        record = os.path.abspath(record)
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    lines = []

    def say(s=""):
        print(s)
        lines.append(s)

    failed = []
    text = {}
    worst = {}
    for profile in ("release", "size"):
        sh(["cargo", "build", "--profile", profile, "--bins"])
        for probe in PROBES:
            elf = f"target/{TARGET}/{profile}/size_{probe}"
            text[probe, profile] = text_size(elf)
            fr = frames(elf)
            worst[probe, profile] = max(fr.items(), key=lambda kv: kv[1])
            code, _ = run(elf)
            if code != 0:
                failed.append(f"size_{probe} ({profile}) exited with {code} (None: hung)")
    say(f"spblas in a {TARGET} image: .text added to the base image (bytes), largest stack frame")
    say()
    say("| image | .text, opt-level 3 | .text, opt-level z | largest frame, 3 | largest frame, z |")
    say("|---|---|---|---|---|")
    for probe in [p for p in PROBES if not p.startswith("base")]:
        row = [f"`size_{probe}`"]
        for profile in ("release", "size"):
            add = text[probe, profile] - text[BASE.get(probe, "base"), profile]
            budget = TEXT_BUDGET.get((probe, profile))
            row.append(f"{add}" + (f" (budget {budget})" if budget else ""))
            if budget and add > budget:
                failed.append(f"size_{probe} ({profile}) adds {add} bytes of .text, budget {budget}")
        for profile in ("release", "size"):
            fn, size = worst[probe, profile]
            row.append(f"{size} (`{fn[:60]}`)")
            if probe in FRAMED and size > FRAME_BUDGET:
                failed.append(f"size_{probe} ({profile}): {fn} has a {size}-byte frame, budget {FRAME_BUDGET}")
        say("| " + " | ".join(row) + " |")
    say()
    for profile in ("release", "size"):
        elf = f"target/{TARGET}/{profile}/spblas-firmware"
        code, out = run(elf)
        say(f"The firmware program (`{profile}` profile), .text {text_size(elf)} bytes, prints:")
        say()
        for line in out.rstrip().splitlines():
            say("    " + line)
        say()
        if code != 0:
            failed.append(f"firmware program ({profile}) exited with {code} (None: hung)")
    if record:
        rustc = subprocess.run(["rustc", "--version"], text=True, capture_output=True).stdout.strip()
        qemu = subprocess.run(["qemu-system-arm", "--version"], text=True, capture_output=True).stdout.splitlines()[0]
        with open(record, "w") as f:
            f.write("# spblas on a Cortex-M4F: code size and stack\n\n")
            f.write(f"`python3 examples/firmware/check.py --record ...`; {rustc}; {qemu}, `-machine mps2-an386`.\n\n")
            f.write("\n".join(lines).rstrip() + "\n")
    if failed:
        print("\nFAILED:\n  " + "\n  ".join(failed))
        sys.exit(1)
    print("\nall budgets met, every image ran and checked its results")


if __name__ == "__main__":
    main()
