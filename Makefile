# The course's one build file; `make help` lists the targets (ARCH=sm_90 builds for one GPU).
# Targets that need a GPU: without one (nvidia-smi -L; HAVE_GPU= acts so) they say so, exit 2.
GPU_TARGETS := compare compare-rows compare-types compare-multi bits claims accuracy inputs-cost harris clusters \
               sanitize ncu profile test-large stress faults
ifneq ($(filter $(GPU_TARGETS),$(MAKECMDGOALS)),)
HAVE_GPU ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo yes)
ifeq ($(HAVE_GPU),)
$(error make $(firstword $(filter $(GPU_TARGETS),$(MAKECMDGOALS))) needs an NVIDIA GPU and this machine shows none (nvidia-smi -L); nothing was built or run)
endif
endif
NVCC      ?= nvcc
CC        ?= gcc
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC))))
BUILD     := build
CFLAGS    ?= -O2 -g
CWARN     := -std=c11 -Wall -Wextra -Werror
NVCCFLAGS ?= -O3 -lineinfo
# (#pragma unroll in __host__ __device__ code is for the GPU's compiler; the host's ignores it.)
NVWARN    := -std=c++20 -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers,-Wno-unknown-pragmas -Werror all-warnings
OPENMP    := -fopenmp
LDLIBS    := -lgomp
comma     := ,

# ---- GPU architectures: each GPU's here ("9.0" -> 90), or ARCH, or else a cubin per family
# the toolkit knows and PTX for newer GPUs. ARCH=compute_75 builds PTX alone (the quickest).
## ARCH=sm_90 ## build: build for one GPU architecture only (default: this machine's GPU, or, with none, every architecture the toolkit knows)
ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | sort -u)
PTX_ONLY  := $(patsubst compute_%,%,$(filter compute_%,$(ARCH)))
ARCH_NUMS := $(patsubst sm_%,%,$(filter-out compute_%,$(ARCH)))
KNOWN     := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
FAT       := $(filter $(KNOWN),75 80 90 100 110 120)
ifneq ($(strip $(ARCH_NUMS) $(PTX_ONLY)),)
GENCODE := $(foreach a,$(ARCH_NUMS),-gencode arch=compute_$(a),code=[sm_$(a),compute_$(a)]) \
           $(foreach a,$(PTX_ONLY),-gencode arch=compute_$(a),code=compute_$(a))
else
GENCODE := $(foreach a,$(FAT),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(lastword $(FAT)),code=compute_$(lastword $(FAT))
endif
$(BUILD)/gencode: FORCE # GPU code is rebuilt when the architectures change
	@mkdir -p $(@D)
	@echo '$(GENCODE)' | cmp -s - $@ || echo '$(GENCODE)' > $@

# ---- the harness: common/*.c for float (build/float/) and uint32 (build/exact/),
# each an archive, so that a program links only the objects it calls.
HARNESS := $(patsubst common/%.c,%,$(wildcard common/*.c common/inputs/*.c))
HEADERS := $(wildcard common/*.h common/*/*.h)
STEP_HEADERS := $(wildcard steps/*.cuh)
lib        = $(BUILD)/$(1)/libharness.a
exact_flag = $(if $(findstring exact,$(1)),-DREDUCE_EXACT)
# OBJ_RULES(dir, sources, compiler flags, headers): sources/%.c into dir/%.o.
define OBJ_RULES
$(1)/%.o: $(2)/%.c $(4)
	@mkdir -p $$(@D)
	$$(CC) $(3) -c $$< -o $$@
endef
$(foreach k,float exact,$(eval $(call OBJ_RULES,$(BUILD)/$(k),common,$$(CFLAGS) $$(CWARN) $$(OPENMP) \
  $(call exact_flag,$(k)) -I$$(CUDA_HOME)/include,$(HEADERS))))
$(foreach d,float exact hygiene/float hygiene/exact,$(eval $(BUILD)/$(d)/libharness.a: $(HARNESS:%=$(BUILD)/$(d)/%.o)))
%/libharness.a:
	rm -f $@ && $(AR) rcs $@ $^
# prog(program, source, float|exact, flags, objects, link flags, headers, group):
# one program on the harness with the steps' flags and architectures; make GROUP
# builds it. prog2: the same, float and program_exact (the exact twins of objects).
define PROG
$(1): $(2) $(5) $(call lib,$(3)) $(HEADERS) $(STEP_HEADERS) $(7) $(BUILD)/gencode
	$(if $(findstring /,$(1)),@mkdir -p $$(@D))
	$$(NVCC) $$(NVCCFLAGS) $$(NVWARN) $(4) $(call exact_flag,$(3)) $$(GENCODE) -o $$@ $(2) $(5) $(call lib,$(3)) $$(LDLIBS) $(6)
endef
prog  = $(eval $(call PROG,$(strip $(1)),$(2),$(strip $(3)),$(4),$(5),$(6),$(7)))$(if $(8),$(eval $(8): $(1))$(eval .PHONY: $(8)))
prog2 = $(call prog,$(1),$(2),float,$(4),$(5),$(6),$(7),$(8))$(call \
  prog,$(1)_exact,$(2),exact,$(4),$(subst /float/,/exact/,$(5)),$(6),$(7),$(8))

# ---- the steps: every steps/NN_name.cu, as ./stepNN (float) and build/exact/stepNN
# (uint32). Step 09 adds common/multi/ (several GPUs: NCCL, MPI), step 11 common/rows/,
# step 12 common/types/ (typed arrays: no uint32 build).
num          = $(firstword $(subst _, ,$(notdir $(1))))
steps_of     = $(foreach f,$(1),step$(call num,$(f)))
MULTI_SRCS  := $(wildcard steps/09_*.cu)
ROWS_SRCS   := $(wildcard steps/11_*.cu)
TYPES_SRCS  := $(wildcard steps/12_*.cu)
STEP_SRCS   := $(filter-out $(MULTI_SRCS) $(ROWS_SRCS) $(TYPES_SRCS),$(sort $(wildcard steps/[0-9][0-9]_*.cu)))
STEPS       := $(call steps_of,$(STEP_SRCS))
MULTI_STEPS := $(call steps_of,$(MULTI_SRCS))
ROWS_STEPS  := $(call steps_of,$(ROWS_SRCS))
TYPES_STEPS := $(call steps_of,$(TYPES_SRCS))
EXACT       := $(STEPS:%=$(BUILD)/exact/%)
ALL_STEPS   := $(sort $(STEPS) $(MULTI_STEPS) $(ROWS_STEPS) $(TYPES_STEPS))
# NCCL (the CUDA Toolkit's or the system's) and MPI (mpicc: a process a GPU):
# without either the rest builds, and make says what is missing.
nccl_dirs    = $(NCCL_HOME) $(CUDA_HOME) /usr /usr/local
NCCL_INC    ?= $(firstword $(foreach d,$(nccl_dirs),$(if $(wildcard $(d)/include/nccl.h),$(d)/include)))
NCCL_LIBDIR ?= $(firstword $(foreach d,$(nccl_dirs:%=%/lib64) $(nccl_dirs:%=%/lib) /usr/lib/x86_64-linux-gnu \
                 /usr/lib/aarch64-linux-gnu,$(if $(wildcard $(d)/libnccl.so),$(d))))
MPI_CFLAGS  ?= $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS    ?= $(shell mpicc --showme:link 2>/dev/null)
STEP09_NEEDS := $(if $(NCCL_INC),,NCCL (nccl.h and libnccl: the CUDA Toolkit's, or apt-get install libnccl-dev)) \
                $(if $(MPI_LIBS),,MPI (Open MPI's mpicc: apt-get install libopenmpi-dev))
HAVE_MULTI  := $(if $(strip $(STEP09_NEEDS)),,yes)
STEP09_MSG  := $(MULTI_STEPS) and the answers on several GPUs need $(strip $(STEP09_NEEDS)), which this \
               machine lacks; the other steps build without them
MPI_LINK    = $(patsubst -Wl$(comma)%,-Xlinker %,$(filter-out -pthread,$(MPI_LIBS)))
MULTI_LINK  = -L$(NCCL_LIBDIR) -lnccl $(MPI_LINK)
multi_objs  = $(foreach p,team shard multi,$(BUILD)/$(1)/multi/$(p).o)
# common/multi/ for the steps and the tests: KIND-virtual runs ranks on one GPU, -fault
# makes one fault, -shift shifts the shards (each kind's flags from its name).
multi_flags = $(call exact_flag,$(1)) $(if $(findstring virtual,$(1))$(findstring shift,$(1)),-DVIRTUAL_RANKS) \
              $(if $(findstring fault,$(1)),-DINJECT_FAULT) $(if $(findstring shift,$(1)),-DSHARD_SHIFT=1000)
$(foreach k,float exact float-virtual exact-virtual float-fault float-shift exact-shift,$(eval $(call \
  OBJ_RULES,$(BUILD)/$(k)/multi,common/multi,$$(CFLAGS) $$(CWARN) $(call multi_flags,$(k)) -I$$(CUDA_HOME)/include \
  $$(MPI_CFLAGS),$(HEADERS))))
TYPES_OBJS := $(patsubst common/%.c,$(BUILD)/float/%.o,$(wildcard common/types/*.c))
# What step NN adds to the harness: objects (float|exact), flags, link flags, builds (step 12's elements are typed: no uint32 build).
is_multi     = $(filter step$(1),$(MULTI_STEPS))
is_rows      = $(filter step$(1),$(ROWS_STEPS))
is_types     = $(filter step$(1),$(TYPES_STEPS))
part_objs    = $(if $(is_multi),$(call multi_objs,$(2)))$(if $(is_rows),$(BUILD)/$(2)/rows/rows.o)$(if $(is_types),$(TYPES_OBJS))
part_flags   = $(if $(is_multi),-I$(NCCL_INC))
part_link    = $(if $(is_multi),$(MULTI_LINK))
part_kinds   = float $(if $(is_types),,exact)
BUILDABLE := $(STEP_SRCS) $(ROWS_SRCS) $(TYPES_SRCS) $(if $(HAVE_MULTI),$(MULTI_SRCS))
$(foreach f,$(BUILDABLE),$(foreach n,$(call num,$(f)),$(foreach k,$(call part_kinds,$(n)),$(call prog,$(if \
  $(filter exact,$(k)),$(BUILD)/exact/)step$(n),$(f),$(k),$(call part_flags,$(n)),$(call part_objs,$(n),$(k)),$(call \
  part_link,$(n))))))
.DEFAULT_GOAL := all
## make stepNN ## build: one step, e.g. make step03 && ./step03
all: $(call steps_of,$(BUILDABLE)) $(if $(HAVE_MULTI),,step09-needs)  ## build: every step as ./stepNN (float); make -j2 (or -j$(nproc)) builds side by side (step 09 needs NCCL and MPI; without them make says so and goes on)
exact: $(addprefix $(BUILD)/exact/,$(call steps_of,$(filter-out $(TYPES_SRCS),$(BUILDABLE))))  ## build: the uint32 builds, in build/exact/
ifeq ($(HAVE_MULTI),)
$(MULTI_STEPS) $(MULTI_STEPS:%=$(BUILD)/exact/%):
	@echo "$(STEP09_MSG)" >&2; exit 1
step09-needs:
	@echo "$(STEP09_MSG)"
endif
# Without a GPU and without ARCH, say once what a build of the steps costs.
ifeq ($(strip $(ARCH_NUMS) $(PTX_ONLY)),)
ifneq ($(filter all exact answers $(STEPS) $(MULTI_STEPS) $(ROWS_STEPS) $(TYPES_STEPS),$(or $(MAKECMDGOALS),all)),)
$(info make: no GPU found, so this builds for $(words $(FAT)) architectures ($(FAT:%=sm_%)), which is slow; \
  ARCH=sm_90 builds for one (sm_80: A100, sm_89: RTX 40xx, sm_90: H100 and H200))
endif
endif
# The course text, the answers, the tests and the lab are built by fragments beside them.
include docs/docs.mk answers/answers.mk tests/tests.mk lab/claims/claims.mk lab/harris/harris.mk \
        lab/small-sizes/clusters.mk lab/tuning/tuning.mk

# ---- the baselines, the bandwidth ceiling. CUB's gpu_to_gpu (step 08's) and fixed-size segments
# (step 11's) need CCCL 3.1+: CCCL_INCLUDE=DIR, the toolkit's, or `pip install nvidia-cuda-cccl`'s.
has_g2g      = $(if $(shell grep -ls gpu_to_gpu $(1)/cuda/__execution/determinism.h),$(1))
CCCL_PIP     := $(shell python3 -c "import glob, nvidia; print(' '.join(d for p in nvidia.__path__ for d in glob.glob(p + '/cu*/include/cccl')))" 2>/dev/null)
CCCL_INCLUDE ?= $(firstword $(foreach d,$(CUDA_HOME)/include/cccl $(CCCL_PIP),$(call has_g2g,$(d))))
## make bench ## build: the CUB baselines and the bandwidth ceiling, in build/bench/
$(foreach p,cub_sum cub_types ceiling,$(call prog,$(BUILD)/bench/$(p),bench/$(p).cu,float,,,,,bench))
$(call prog,$(BUILD)/bench/cub_rows,bench/cub_rows.cu,float,,$(BUILD)/float/rows/rows.o,,,bench)
ifneq ($(CCCL_INCLUDE),)
$(call prog,$(BUILD)/bench/cub_rows_fixed,bench/cub_rows.cu,float,-I$(CCCL_INCLUDE) -DFIXED_SIZE,$(BUILD)/float/rows/rows.o,,,bench)
$(call prog,$(BUILD)/bench/cub_gpu_to_gpu,bench/cub_gpu_to_gpu.cu,float,-I$(CCCL_INCLUDE),,,,bench)
else
bench:
	@echo "SKIP cub_gpu_to_gpu: CUB's gpu_to_gpu mode needs newer CCCL headers than this CUDA Toolkit has: pip install nvidia-cuda-cccl, or CCCL_INCLUDE=DIR (the folder with cub/ and cuda/)"
endif

# ---- measurements, into results/<gpu>/ (ONLY=... measures those alone, the others' rows kept)
MAX_N ?= 2^28
compare: all bench  ## measure: every step and CUB side by side on this GPU (results/<gpu>/)
	python3 bench/compare.py --max-n '$(MAX_N)' $(if $(ONLY),--only '$(ONLY)')
	$(if $(ONLY),,python3 bench/compare_rows.py)
compare-rows: $(ROWS_STEPS) bench  ## measure: step 11 beside CUB's segmented sums, torch and cupy, a sum for every row of 2^28 floats at every row length (results/<gpu>/rows.*)
	python3 bench/compare_rows.py $(if $(ONLY),--only '$(ONLY)')
compare-types: step12 $(BUILD)/bench/cub_types  ## measure: step 12 beside CUB, torch and cupy on every type and operator, n = 2^10 to 2^28 (results/<gpu>/types.*); PAIRS=bf16:sum,... N=...
	python3 bench/compare_types.py $(if $(PAIRS),--pairs '$(PAIRS)') $(if $(N),--n '$(N)')
accuracy: all bench $(ANSWERS_DIR)/07_compensated $(ANSWERS_DIR)/07_compensated_front  ## measure: every program's error against the exact sum on every input, n = 2^10 to 2^24 (uniform to 2^28), four seeds (results/<gpu>/accuracy.csv, accuracy-INPUT.svg)
	python3 bench/accuracy.py
inputs-cost: all bench  ## measure: steps 07, 08 and 10 and CUB's two sums timed on every input at 2^24 and 2^28 (results/<gpu>/inputs_cost.csv)
	python3 bench/inputs_cost.py
bits: step08  ## measure: step 08's result bits on this GPU (results/<gpu>/bits08.csv)
	python3 bench/bits.py
compare-multi: step08 step09 $(BUILD)/answers/10_multi_gpu  ## measure: steps 09 and 10 on one GPU up to every GPU here (results/<gpu>-x<G>/); MULTI_GPUS=1 for the one-GPU baseline; LARGE=3*2^33 adds a sum larger than one GPU holds
	python3 bench/compare_multi.py $(if $(MULTI_GPUS),--gpus $(MULTI_GPUS)) $(if $(LARGE),--large '$(LARGE)') \
	    $(if $(LARGE_ONLY),--large-only)
## make lab-collectives ## lab: each piece of a small run on several GPUs timed alone (lab/multi-gpu/)
$(call prog,$(BUILD)/lab/collectives,lab/multi-gpu/collectives.cu,float,-I$(NCCL_INC),,-L$(NCCL_LIBDIR) -lnccl,,lab-collectives)
plots:  ## measure: redraw the plots from results/<gpu>/compare.csv and accuracy.csv (gnuplot)
	@for d in results/*/; do [ -f $$d/compare.csv ] && python3 bench/plots.py $${d%/}; done; true
	@for d in results/*/; do [ -f $$d/accuracy.csv ] && python3 bench/accuracy.py --from $${d%/}; done; true
readme-table: step03  ## measure: regenerate README.md's step table from results/
	python3 bench/readme_table.py
# A target that needs a tool says so in one line, and that nothing was done.
NO_GPU_MSG = ./step$(STEP) --check-only --n 1 >/dev/null 2>&1 || { \
    echo "make $@: no usable GPU here ($$(./step$(STEP) --check-only --n 1 2>&1 >/dev/null | head -1)); nothing was done" >&2; exit 1; }
SANITIZE_N := 1,1000,2^20+3
SANITIZE_EXTRA ?= $(ANSWERS_SANITIZE) $(CLUSTERS_DIR)/flag_sum
SANITIZER := $(shell command -v compute-sanitizer 2>/dev/null)
NO_SANITIZER = echo "make sanitize: compute-sanitizer is not on the PATH (it comes with the CUDA Toolkit, in its bin/ folder); nothing was checked" >&2; exit 1
sanitize: $(if $(SANITIZER),$(STEPS) $(SANITIZE_EXTRA))  ## tests: compute-sanitizer memcheck, racecheck, synccheck, initcheck
	@$(if $(SANITIZER),$(NO_GPU_MSG),$(NO_SANITIZER))
	@bash tests/sanitize.sh "$(SANITIZE_N)" $(STEPS) $(SANITIZE_EXTRA)
STEP  ?= 03
NCU_N ?= 2^24
NCU_METRICS := gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed sm__warps_active.avg.pct_of_peak_sustained_active \
  $(foreach r,long_scoreboard barrier membar lg_throttle wait short_scoreboard,smsp__average_warps_issue_stalled_$(r)_per_issue_active.ratio)
NCU := $(shell command -v ncu 2>/dev/null)
NO_NCU = echo "make $@: Nsight Compute (ncu) is not on the PATH; it comes with the CUDA Toolkit, or from https://developer.nvidia.com/nsight-compute; nothing was profiled" >&2; exit 1
ncu: $(if $(NCU),step$(STEP))  ## measure: Nsight Compute on one step (STEP=06): time, DRAM throughput, occupancy, stalls
	@$(if $(NCU),$(NO_GPU_MSG),$(NO_NCU))
	ncu --clock-control none --metrics $(subst $() ,$(comma),$(strip $(NCU_METRICS))) \
	    ./step$(STEP) --n '$(NCU_N)' --check-only
profile: $(if $(NCU),all bench)  ## measure: Nsight Compute on every step and CUB at 2^16, 2^20, 2^28 (step 11: six shapes), with SASS counts: results/<gpu>/profile.csv; ONLY=07,08
	@$(if $(NCU),$(NO_GPU_MSG),$(NO_NCU))
	python3 bench/profile.py $(if $(ONLY),--only '$(ONLY)')
sass: step$(STEP) $(BUILD)/exact/step$(STEP)  ## measure: the step's machine code (STEP=04), with the instructions that matter marked
	@bash bench/sass.sh $(STEP)
# make print-NAME prints variable NAME (the tests read these); \n starts a line.
steps          = $(STEP_SRCS) $(MULTI_SRCS)
rows-steps     = $(ROWS_SRCS)
types-steps    = $(TYPES_SRCS)
multi-steps    = $(MULTI_SRCS)
multi-flags    = $(if $(HAVE_MULTI),-I$(NCCL_INC) $(MPI_CFLAGS))
print-%:
	@printf '%b' '$(strip $($*))$(if $(strip $($*)),\n)'
clean:  ## build: remove what the build made
	rm -rf $(BUILD) $(ALL_STEPS)
# Every target the README names; (GPU) marks those that need one to do anything.
help:  ## build: this list
	@awk -v gpu=" $(GPU_TARGETS) " -f docs/make_help.awk $(MAKEFILE_LIST)

FORCE:
# Last resort, for a goal no rule makes (make step13, make stpe07): one line naming the steps
# (exit 2); a file that exists (a source make -B asks about) is left as it is. .DEFAULT, not a
# match-anything rule, which would also give its recipe to targets without one (multi-tests).
.DEFAULT:
	$(if $(wildcard $@),,$(error make $@: no such step or target; the steps are $(firstword $(ALL_STEPS)) to $(lastword $(ALL_STEPS)) (make step03); make help lists the others))
.PHONY: $(GPU_TARGETS) all exact bench lab-collectives plots readme-table step09-needs sass clean help FORCE answers-rows \
  ranks-programs docs docs-pages docs-clean course lab-page test test-full unit exact-speed exact-acc-test exact-acc-mutants \
  hygiene hygiene-build faults-build $(if $(HAVE_MULTI),,$(MULTI_STEPS) $(MULTI_STEPS:%=$(BUILD)/exact/%))
