# What scripts/test (the regression and fixed-seed fuzz stage) and scripts/fuzz (exploration)
# share about the libFuzzer targets.  Sourced; needs $here (the checkout) set.
#
# A target is every executable build-fuzz/tests/fuzz/fuzz-NAME that tests/fuzz/meson.build
# builds: a new target is picked up without changing these scripts.  Its inputs:
#   tests/fuzz/seeds/NAME/      the seed corpus (hand-made and real files)
#   tests/fuzz/seed-dirs        more seed folders per target ("NAME FOLDER" lines, from the
#                               checkout's root), e.g. the example hypotheses in data/hypotheses
#   tests/fuzz/crashes/NAME/    every input that once crashed it: regression tests, each must
#                               now be refused cleanly (scripts/fuzz saves new ones here)
#   tests/fuzz/dicts/NAME.dict  a libFuzzer dictionary (the words of the format), optional
#   tests/fuzz/ci-runs          the number of fixed-seed runs per target in scripts/test
#                               ("NAME RUNS" lines; targets not listed get the "*" line)

fuzz_dir=${KUBUS_FUZZ_BUILD:-$here/build-fuzz}

# Options of every run: memory and input limits; a leak or undefined behaviour is a failure.
fuzz_env() {
  export ASAN_OPTIONS=detect_leaks=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  unset LSAN_OPTIONS
}
fuzz_opts=(-rss_limit_mb=2048 -max_len=65536)

# fuzz_build JOBS: configures (once) and builds the fuzz targets (clang, ASan + UBSan).
fuzz_build() {
  if [ ! -f "$fuzz_dir/build.ninja" ]; then
    CC=clang meson setup "$fuzz_dir" -Dfuzz=true -Dgui=disabled -Dmpi=disabled \
      -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
  fi
  # the targets alone: the rest of that build (the tools, the unit tests, the benchmarks) took
  # half of its time, beside the sanitizer pass's tests (2026-12-02)
  local targets
  targets=$(ninja -C "$fuzz_dir" -t targets all | sed -n 's|^\(tests/fuzz/fuzz-[a-z0-9-]*\):.*|\1|p')
  [ -n "$targets" ] || { echo "fuzz: no fuzz targets in $fuzz_dir" >&2; return 1; }
  # shellcheck disable=SC2086
  ninja -C "$fuzz_dir" -j "$1" $targets >/dev/null
}

# fuzz_targets [NAME...]: the target executables (all, or the ones named; "fuzz-" optional).
fuzz_targets() {
  local f n
  if [ "$#" -eq 0 ]; then
    for f in "$fuzz_dir"/tests/fuzz/fuzz-*; do
      [ -f "$f" ] && [ -x "$f" ] && echo "$f"
    done
    return 0
  fi
  for n in "$@"; do
    f=$fuzz_dir/tests/fuzz/fuzz-${n#fuzz-}
    if [ ! -x "$f" ]; then
      echo "fuzz: no target ${n#fuzz-} (built: $(cd "$fuzz_dir/tests/fuzz" && ls -d fuzz-* 2>/dev/null | grep -v '\.p$' | tr '\n' ' '))" >&2
      return 1
    fi
    echo "$f"
  done
}

# fuzz_seed_dirs NAME: the seed folders of target NAME (those that exist).
fuzz_seed_dirs() {
  local name=$1 t d
  [ -d "$here/tests/fuzz/seeds/$name" ] && echo "$here/tests/fuzz/seeds/$name"
  if [ -f "$here/tests/fuzz/seed-dirs" ]; then
    while read -r t d; do
      case $t in ''|'#'*) continue ;; esac
      [ "$t" = "$name" ] && [ -d "$here/$d" ] && echo "$here/$d"
    done <"$here/tests/fuzz/seed-dirs"
  fi
  return 0
}

# fuzz_dict_opts NAME: -dict=… when target NAME has a dictionary.
fuzz_dict_opts() {
  [ -f "$here/tests/fuzz/dicts/$1.dict" ] && echo "-dict=$here/tests/fuzz/dicts/$1.dict"
  return 0
}

# fuzz_crash_dir NAME
fuzz_crash_dir() {
  echo "$here/tests/fuzz/crashes/$1"
}

# fuzz_regression_inputs NAME: every saved crash input (first), then every seed file.
fuzz_regression_inputs() {
  local d
  d=$(fuzz_crash_dir "$1")
  [ -d "$d" ] && find "$d" -maxdepth 1 -type f ! -name '.*' ! -name '*.md' | LC_ALL=C sort
  fuzz_seed_dirs "$1" | while read -r d; do
    find "$d" -maxdepth 1 -type f ! -name '.*' | LC_ALL=C sort
  done
}

# fuzz_ci_runs NAME: how many fixed-seed runs scripts/test gives target NAME.
fuzz_ci_runs() {
  local name=$1 t n def=2000
  while read -r t n; do
    case $t in ''|'#'*) continue ;; esac
    [ "$t" = "*" ] && def=$n
    if [ "$t" = "$name" ]; then echo "$n"; return 0; fi
  done <"$here/tests/fuzz/ci-runs"
  echo "$def"
}
