#!/usr/bin/env bash
# Packs a build's GPU programs with the shared libraries they load into one archive, so the GPU
# suites and run_all.sh run on a machine that has the NVIDIA driver but not this build's
# libraries (LLVM, MLIR, Open MPI, hwloc: a CUDA container image, say).
#   bench/gpu/pack.sh [BUILD_DIR] [ARCHIVE]      (defaults: build, gpu-pack.tar.xz)
# The archive holds bin/ (a wrapper per program that sets LD_LIBRARY_PATH for it alone, so
# python3 and the system's tools keep their own libraries), libexec/ (the stripped programs)
# and lib/. Unpack it anywhere and give that directory to run_all.sh as BUILD_DIR:
#   mkdir pack && tar xJf gpu-pack.tar.xz -C pack
#   pack/bin/collplan_cuda_device_tests && bench/gpu/run_all.sh --quick pack
# The C library and the dynamic loader stay the target's (glibc is backwards compatible: build
# on the older system). libz3 (LLVM's optional SMT solver) and libicudata (ICU's locale data,
# loaded through libxml2) are replaced by stubs: collplan calls neither, and together they are
# 54 MB of the 250. A stub defines no functions, so a call into one fails at that call; data
# symbols are defined where the loader needs them at start.
set -euo pipefail

build=${1:-build}
archive=${2:-gpu-pack.tar.xz}
programs=(collplan_cuda_device_tests collplan_cuda_compiled_gpu_tests collplan_example_cuda
  plan-bench plan-tune plan-compile collplan-copy-roofline)

die() { echo "pack.sh: $*" >&2; exit 1; }
[[ -d $build/bin ]] || die "$build/bin: no such directory (give the build directory)"
command -v xz > /dev/null || die "xz not found (apt-get install xz-utils)"
command -v cc > /dev/null || die "cc not found: the library stubs are compiled"
for p in "${programs[@]}"; do
  [[ -x $build/bin/$p ]] ||
    die "$build/bin/$p not found: build it where nvcc is found (cmake --build $build --target $p)"
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/libexec" "$stage/lib"

# The libraries the programs load, except the C library's own (the target has them).
system='/(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-x86-64)\.so'
for p in "${programs[@]}"; do
  missing=$(ldd "$build/bin/$p" | grep 'not found' || true)
  [[ -z $missing ]] || die "$p: a library it loads is missing here: $missing"
  ldd "$build/bin/$p" | awk '/=> \//{print $3}'
done | sort -u | grep -Ev "$system" | while read -r lib; do cp -L "$lib" "$stage/lib/"; done

stub() {  # stub SONAME [C source]: a library of that name holding only the source's symbols
  echo "${2:-}" > "$stage/stub.c"
  cc -shared -fPIC -Wl,-soname,"$1" -o "$stage/lib/$1" "$stage/stub.c"
}
[[ -e $stage/lib/libz3.so.4 ]] && stub libz3.so.4
for icu in "$stage"/lib/libicudata.so.*; do
  [[ -e $icu ]] || continue
  version=${icu##*.so.}
  stub "libicudata.so.$version" "const char icudt${version}_dat[64];"
done
rm -f "$stage/stub.c"

for p in "${programs[@]}"; do
  cp "$build/bin/$p" "$stage/libexec/$p"
  strip "$stage/libexec/$p"
  cat > "$stage/bin/$p" << EOF
#!/bin/sh
# Runs libexec/$p with the libraries packed beside it (bench/gpu/pack.sh).
here=\$(cd "\$(dirname "\$0")/.." && pwd)
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/libexec/$p" "\$@"
EOF
  chmod +x "$stage/bin/$p"
done

echo "pack.sh: compressing $(du -sh "$stage" | cut -f1) into $archive (xz -9, a few minutes)" >&2
tar -C "$stage" -cf - bin libexec lib | xz -9 -T0 > "$archive"
echo "pack.sh: $archive, $(du -h "$archive" | cut -f1)" >&2
