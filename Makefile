# The course's one build file. `make help` lists the targets.
#
#   make step03 && ./step03     build and run one step
#   make test                   every test this machine can run
#
# With a GPU present, code is built for that GPU; without one, for every
# architecture this CUDA toolkit supports (a fat binary). ARCH=sm_90 (or
# ARCH=90) picks one yourself.

# ---- targets that need a GPU -----------------------------------------------------
# On a machine without one (nvidia-smi -L lists none), each says so in one
# line before anything is built, and make exits with status 2, as it does
# whenever a target fails. `make help` marks them (GPU); HAVE_GPU= (empty)
# acts as if there were none (the tests use it).
GPU_TARGETS := compare compare-rows compare-multi bits claims accuracy inputs-cost harris clusters \
               sanitize ncu profile test-large stress faults
ifneq ($(filter $(GPU_TARGETS),$(MAKECMDGOALS)),)
HAVE_GPU ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo yes)
ifeq ($(HAVE_GPU),)
$(error make $(firstword $(filter $(GPU_TARGETS),$(MAKECMDGOALS))) needs an NVIDIA GPU and this machine shows none (nvidia-smi -L); nothing was built or run)
endif
endif

NVCC   ?= nvcc
CC     ?= gcc
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC))))
BUILD  := build

CFLAGS    ?= -O2 -g
CWARN     := -std=c11 -Wall -Wextra -Werror
NVCCFLAGS ?= -O3 -lineinfo
# (#pragma unroll in __host__ __device__ code is for the GPU's compiler; the host's ignores it.)
NVWARN    := -std=c++20 -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers,-Wno-unknown-pragmas -Werror all-warnings
OPENMP    := -fopenmp
LDLIBS    := -lgomp

# ---- GPU architectures -------------------------------------------------------
# The compute capability of each GPU here ("9.0" -> 90), or ARCH from the
# command line, or else one cubin per architecture family the toolkit knows
# (a cubin runs on its own and later minor versions) plus PTX for newer GPUs.
# ARCH=90 or sm_90 builds a cubin and PTX for that one; ARCH=compute_75 builds
# PTX alone (the quickest build: the tests on a machine without a GPU).
ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | sort -u)
PTX_ONLY  := $(patsubst compute_%,%,$(filter compute_%,$(ARCH)))
ARCH_NUMS := $(patsubst sm_%,%,$(filter-out compute_%,$(ARCH)))
FAMILIES  := 75 80 90 100 110 120
KNOWN     := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
FAT       := $(filter $(KNOWN),$(FAMILIES))
ifneq ($(strip $(ARCH_NUMS) $(PTX_ONLY)),)
GENCODE := $(foreach a,$(ARCH_NUMS),-gencode arch=compute_$(a),code=[sm_$(a),compute_$(a)]) \
           $(foreach a,$(PTX_ONLY),-gencode arch=compute_$(a),code=compute_$(a))
else
GENCODE := $(foreach a,$(FAT),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(lastword $(FAT)),code=compute_$(lastword $(FAT))
endif

# ---- the harness, built once per element type --------------------------------
# The core (common/*.c), which every step links; steps on several GPUs also
# link common/multi/ (below).
HARNESS    := fail args bound order report device input timing check harness \
              inputs/exact inputs/exact_round inputs/inputs inputs/infile inputs/npy
FLOAT_OBJS := $(HARNESS:%=$(BUILD)/float/%.o)
EXACT_OBJS := $(HARNESS:%=$(BUILD)/exact/%.o)
HEADERS    := common/base.h common/harness.h common/parts.h common/inputs/exact.h common/inputs/inputs.h \
              common/inputs/npy.h
# What steps include: one_block.cuh (steps 05 to 07, and answers built on them),
# fixed_order.cuh (steps 08, 09), exact_acc.cuh (step 10).
STEP_HEADERS := $(wildcard steps/*.cuh)

$(BUILD)/float/%.o: common/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -c $< -o $@
$(BUILD)/exact/%.o: common/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -DREDUCE_EXACT -I$(CUDA_HOME)/include -c $< -o $@

# Rebuild GPU code when the architectures change.
$(BUILD)/gencode: FORCE
	@mkdir -p $(@D)
	@echo '$(GENCODE)' | cmp -s - $@ || echo '$(GENCODE)' > $@

# ---- the steps ----------------------------------------------------------------
# Every steps/NN_name.cu is a step: ./stepNN (float) and build/exact/stepNN
# (uint32). A step that links more than the harness's core names its part
# here by its number; the others need nothing.
MULTI_NUMS := 09    # several GPUs: common/multi/, NCCL and MPI
ROWS_NUMS  := 11    # a sum for every row of a matrix: common/rows/
num         = $(firstword $(subst _, ,$(notdir $(1))))
srcs_of     = $(foreach n,$(1),$(wildcard steps/$(n)_*.cu))
MULTI_SRCS := $(call srcs_of,$(MULTI_NUMS))
ROWS_SRCS  := $(call srcs_of,$(ROWS_NUMS))
STEP_SRCS  := $(filter-out $(MULTI_SRCS) $(ROWS_SRCS),$(sort $(wildcard steps/[0-9][0-9]_*.cu)))
steps_of    = $(foreach f,$(1),step$(call num,$(f)))
STEPS      := $(call steps_of,$(STEP_SRCS))
MULTI_STEPS := $(call steps_of,$(MULTI_SRCS))
ROWS_STEPS := $(call steps_of,$(ROWS_SRCS))
EXACT      := $(STEPS:%=$(BUILD)/exact/%)
ALL_STEPS  := $(sort $(STEPS) $(MULTI_STEPS) $(ROWS_STEPS))
FIRST_NUM  := $(patsubst step%,%,$(firstword $(ALL_STEPS)))
LAST_NUM   := $(patsubst step%,%,$(lastword $(ALL_STEPS)))

# The step on several GPUs: NCCL comes with the CUDA Toolkit or the system;
# MPI (Open MPI's mpicc) only starts one process a GPU. Without either,
# everything else still builds, and make says once what step 09 and the
# answers on several GPUs (among them step 10's exact sum on several,
# answers/10_multi_gpu.cu) need. Only common/multi/, step 09 and those
# answers use them.
nccl_dirs    = $(NCCL_HOME) $(CUDA_HOME) /usr /usr/local
NCCL_INC    ?= $(firstword $(foreach d,$(nccl_dirs),$(if $(wildcard $(d)/include/nccl.h),$(d)/include)))
NCCL_LIBDIR ?= $(firstword $(foreach d,$(nccl_dirs:%=%/lib64) $(nccl_dirs:%=%/lib) /usr/lib/x86_64-linux-gnu \
                 /usr/lib/aarch64-linux-gnu,$(if $(wildcard $(d)/libnccl.so),$(d))))
MPI_CFLAGS  ?= $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS    ?= $(shell mpicc --showme:link 2>/dev/null)
STEP09_NEEDS := $(if $(NCCL_INC),,NCCL (nccl.h and libnccl: the CUDA Toolkit's, or apt-get install libnccl-dev)) \
                $(if $(MPI_LIBS),,MPI (Open MPI's mpicc: apt-get install libopenmpi-dev))
STEP09_MSG  := $(MULTI_STEPS) and the answers on several GPUs need $(strip $(STEP09_NEEDS)), which this \
               machine lacks; the other steps build without them
MULTI_PARTS := team shard multi
MULTI_HEADERS := $(HEADERS) common/multi/multi.h common/multi/team.h
MULTI_LINK = -L$(NCCL_LIBDIR) -lnccl $(patsubst -Wl$(comma)%,-Xlinker %,$(filter-out -pthread,$(MPI_LIBS)))

# multi_objs(KIND, FLAGS): the multi-GPU part, compiled with FLAGS into $(BUILD)/KIND/multi/.
define MULTI_OBJ_RULES
$(BUILD)/$(1)/multi/%.o: common/multi/%.c $(MULTI_HEADERS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(CWARN) $(2) -I$(CUDA_HOME)/include $(MPI_CFLAGS) -c $$< -o $$@
endef
$(eval $(call MULTI_OBJ_RULES,float,))
$(eval $(call MULTI_OBJ_RULES,exact,-DREDUCE_EXACT))
MULTI_OBJS_FLOAT := $(MULTI_PARTS:%=$(BUILD)/float/multi/%.o)
MULTI_OBJS_EXACT := $(MULTI_PARTS:%=$(BUILD)/exact/multi/%.o)
ROWS_HEADERS := $(HEADERS) common/rows/rows.h
$(BUILD)/float/rows/rows.o $(BUILD)/exact/rows/rows.o: common/rows/rows.h

# What step NN adds to the core: objects (float or exact), compiler flags, link flags, headers.
part_objs    = $(if $(filter $(1),$(MULTI_NUMS)),$(MULTI_PARTS:%=$(BUILD)/$(2)/multi/%.o)) \
               $(if $(filter $(1),$(ROWS_NUMS)),$(BUILD)/$(2)/rows/rows.o)
part_flags   = $(if $(filter $(1),$(MULTI_NUMS)),-I$(NCCL_INC))
part_link    = $(if $(filter $(1),$(MULTI_NUMS)),$(MULTI_LINK))
part_headers = $(if $(filter $(1),$(MULTI_NUMS)),$(MULTI_HEADERS),$(if $(filter $(1),$(ROWS_NUMS)),$(ROWS_HEADERS),$(HEADERS)))

# STEP_RULES(NN, source): ./stepNN and build/exact/stepNN.
define STEP_RULES
step$(1): $(2) $(FLOAT_OBJS) $(call part_objs,$(1),float) $(call part_headers,$(1)) $(STEP_HEADERS) $(BUILD)/gencode
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(call part_flags,$(1)) $(GENCODE) -o $$@ $(2) $(strip $(FLOAT_OBJS) $(call part_objs,$(1),float)) $(LDLIBS) $(call part_link,$(1))
$(BUILD)/exact/step$(1): $(2) $(EXACT_OBJS) $(call part_objs,$(1),exact) $(call part_headers,$(1)) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(call part_flags,$(1)) -DREDUCE_EXACT $(GENCODE) -o $$@ $(2) $(strip $(EXACT_OBJS) $(call part_objs,$(1),exact)) $(LDLIBS) $(call part_link,$(1))
endef
BUILDABLE := $(STEP_SRCS) $(ROWS_SRCS) $(if $(strip $(STEP09_NEEDS)),,$(MULTI_SRCS))
$(foreach f,$(BUILDABLE),$(eval $(call STEP_RULES,$(call num,$(f)),$(f))))
BUILT_STEPS := $(call steps_of,$(BUILDABLE))
ifneq ($(strip $(STEP09_NEEDS)),)
.PHONY: $(MULTI_STEPS) $(MULTI_STEPS:%=$(BUILD)/exact/%)
$(MULTI_STEPS) $(MULTI_STEPS:%=$(BUILD)/exact/%):
	@echo "$(STEP09_MSG)" >&2
	@exit 1
BUILT_STEPS += step09-needs
step09-needs:
	@echo "$(STEP09_MSG)"
endif

.DEFAULT_GOAL := all
all: $(BUILT_STEPS)
# Without a GPU and without ARCH, say once what a build of the steps costs.
ifeq ($(strip $(ARCH_NUMS) $(PTX_ONLY)),)
ifneq ($(filter all exact answers $(STEPS) $(MULTI_STEPS) $(ROWS_STEPS),$(or $(MAKECMDGOALS),all)),)
$(info make: no GPU found, so this builds for $(words $(FAT)) architectures ($(FAT:%=sm_%)), which is slow; \
  ARCH=sm_90 builds for one (sm_80: A100, sm_89: RTX 40xx, sm_90: H100 and H200))
endif
endif
exact: $(addprefix $(BUILD)/exact/,$(call steps_of,$(BUILDABLE)))

# Targets of the course text, the exercise answers, the tests and the lab's
# experiments (lab/<question>/) live beside what they build.
-include docs/docs.mk answers/answers.mk tests/reliability.mk tests/exact.mk tests/inputs.mk tests/rows.mk \
         lab/claims/claims.mk lab/harris/harris.mk lab/small-sizes/clusters.mk lab/tuning/tuning.mk

# ---- tests --------------------------------------------------------------------
TB   := $(BUILD)/tests
UNIT := $(BUILD)/tests/unit_float $(BUILD)/tests/unit_exact
$(BUILD)/tests/unit_float: tests/unit.c $(FLOAT_OBJS) $(BUILD)/float/multi/shard.o $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) -I$(CUDA_HOME)/include -c $< -o $@.o
	$(NVCC) -o $@ $@.o $(FLOAT_OBJS) $(BUILD)/float/multi/shard.o $(LDLIBS)
$(BUILD)/tests/unit_exact: tests/unit.c $(EXACT_OBJS) $(BUILD)/exact/multi/shard.o $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) -DREDUCE_EXACT -I$(CUDA_HOME)/include -c $< -o $@.o
	$(NVCC) -o $@ $@.o $(EXACT_OBJS) $(BUILD)/exact/multi/shard.o $(LDLIBS)
$(BUILD)/tests/replica: tests/replica.c $(FLOAT_OBJS) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) -I$(CUDA_HOME)/include -c $< -o $@.o
	$(NVCC) -o $@ $@.o $(FLOAT_OBJS) $(LDLIBS)
unit: $(UNIT) $(BUILD)/tests/replica

# Broken kernels that the GPU tests must catch (never in steps/).
MUTANT_SRCS := $(wildcard tests/mutants/*.cu)
MUTANTS     := $(foreach f,$(MUTANT_SRCS),$(BUILD)/mutants/$(basename $(notdir $(f))) \
                                          $(BUILD)/mutants/$(basename $(notdir $(f)))_exact)
$(BUILD)/mutants/%_exact: tests/mutants/%.cu $(EXACT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -DREDUCE_EXACT $(GENCODE) -o $@ $< $(EXACT_OBJS) $(LDLIBS)
$(BUILD)/mutants/%: tests/mutants/%.cu $(FLOAT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)

# Programs on several GPUs (step 09, answers/10_multi_gpu.cu) as the tests build them, where NCCL and MPI are:
#   NAME_virtual   G ranks on one GPU (--virtual-ranks G), through a stand-in
#                  NCCL (tests/fake_nccl/): everything but NCCL's byte moves
#   NAME_fault     REDUCE_FAULT_RANK=r makes rank r's timed runs fault
#   mutants        broken on purpose, made from the step's own source by a sed
#                  script (tests/mutants/multi/*.sed), one change away from it
# The harness's test seams are compiled in only here (-DVIRTUAL_RANKS,
# -DINJECT_FAULT, -DSHARD_SHIFT). TEST_KINDS: objects dir and flags.
TEST_KINDS := float-virtual:-DVIRTUAL_RANKS exact-virtual:-DREDUCE_EXACT@-DVIRTUAL_RANKS \
              float-fault:-DINJECT_FAULT float-shift:-DVIRTUAL_RANKS@-DSHARD_SHIFT=1000 \
              exact-shift:-DREDUCE_EXACT@-DVIRTUAL_RANKS@-DSHARD_SHIFT=1000
$(foreach k,$(TEST_KINDS),$(eval $(call MULTI_OBJ_RULES,$(word 1,$(subst :, ,$(k))),$(subst @, ,$(word 2,$(subst :, ,$(k)))))))
kind_objs  = $(if $(findstring exact,$(1)),$(EXACT_OBJS),$(FLOAT_OBJS)) $(MULTI_PARTS:%=$(BUILD)/$(1)/multi/%.o)
kind_flags = $(if $(findstring exact,$(1)),-DREDUCE_EXACT) \
             $(if $(findstring fault,$(1)),-I$(NCCL_INC),-Itests/fake_nccl tests/fake_nccl/nccl.cu)
kind_link  = $(if $(findstring fault,$(1)),$(MULTI_LINK),$(patsubst -Wl$(comma)%,-Xlinker %,$(filter-out -pthread,$(MPI_LIBS))))
# MULTI_TEST(program, source, kind)
define MULTI_TEST
$(1): $(2) $(call kind_objs,$(3)) $(MULTI_HEADERS) $(STEP_HEADERS) tests/fake_nccl/nccl.cu tests/fake_nccl/nccl.h $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -Isteps -Ianswers $(GENCODE) -o $$@ $(2) $(call kind_flags,$(3)) $(call kind_objs,$(3)) $(LDLIBS) $(call kind_link,$(3))
MULTI_TESTS += $(1)
endef
# A mutant's source: the step's, changed by the sed script, which must change it.
$(BUILD)/mutants/multi/src/%.cu: tests/mutants/multi/%.sed $(MULTI_SRCS) answers/10_multi_gpu.cu
	@mkdir -p $(@D)
	sed -f $< $(shell sed -n '1s/^# from //p' tests/mutants/multi/$*.sed) > $@
	@! cmp -s $@ $(shell sed -n '1s/^# from //p' tests/mutants/multi/$*.sed) || { echo "$<: changes nothing" >&2; rm $@; exit 1; }
MULTI_TESTS :=
ifeq ($(strip $(STEP09_NEEDS)),)
$(foreach f,$(MULTI_SRCS),$(foreach k,float exact,$(eval $(call MULTI_TEST,$(TB)/step$(call num,$(f))_virtual$(if $(filter exact,$(k)),_exact),$(f),$(k)-virtual))))
$(foreach f,$(MULTI_SRCS),$(eval $(call MULTI_TEST,$(TB)/step$(call num,$(f))_fault,$(f),float-fault)))
$(foreach k,float exact,$(eval $(call MULTI_TEST,$(TB)/10_multi_gpu_virtual$(if $(filter exact,$(k)),_exact),answers/10_multi_gpu.cu,$(k)-virtual)))
MM := $(BUILD)/mutants/multi
$(eval $(call MULTI_TEST,$(MM)/drop_rank,$(MM)/src/drop_rank.cu,float-virtual))
$(eval $(call MULTI_TEST,$(MM)/drop_rank_exact,$(MM)/src/drop_rank.cu,exact-virtual))
$(eval $(call MULTI_TEST,$(MM)/drop_rank_real,$(MM)/src/drop_rank.cu,float-fault))
$(eval $(call MULTI_TEST,$(MM)/drop_acc,$(MM)/src/drop_acc.cu,float-virtual))
$(eval $(call MULTI_TEST,$(MM)/drop_acc_exact,$(MM)/src/drop_acc.cu,exact-virtual))
$(eval $(call MULTI_TEST,$(MM)/drop_acc_real,$(MM)/src/drop_acc.cu,float-fault))
$(eval $(call MULTI_TEST,$(MM)/shard_shift,steps/09_multi_gpu.cu,float-shift))
$(eval $(call MULTI_TEST,$(MM)/shard_shift_exact,steps/09_multi_gpu.cu,exact-shift))
# An answer of step 10's chapter on virtual ranks (tests/answers.sh): several
# ranks' rounded sums, added, on one GPU.
$(eval $(call MULTI_TEST,$(TB)/10_round_ranks_virtual,answers/10_round_ranks.cu,float-virtual))
$(eval $(call MULTI_TEST,$(TB)/10_round_ranks_virtual_exact,answers/10_round_ranks.cu,exact-virtual))
endif
multi-tests: $(MULTI_TESTS)
# (After MULTI_TESTS is complete: make expands a rule's prerequisites when it reads the rule.)
mutants: $(MUTANTS) multi-tests

# ---- the library baselines and the bandwidth ceiling --------------------------
# CUB's gpu_to_gpu mode (the baseline of step 08) needs CCCL headers newer than
# CUDA 13.0's: CCCL_INCLUDE=DIR, or the toolkit's own if they have it, or those
# that `pip install nvidia-cuda-cccl` puts beside Python's packages.
has_g2g      = $(if $(shell grep -ls gpu_to_gpu $(1)/cuda/__execution/determinism.h),$(1))
CCCL_PIP     := $(shell python3 -c "import glob, nvidia; print(' '.join(d for p in nvidia.__path__ for d in glob.glob(p + '/cu*/include/cccl')))" 2>/dev/null)
CCCL_INCLUDE ?= $(firstword $(foreach d,$(CUDA_HOME)/include/cccl $(CCCL_PIP),$(call has_g2g,$(d))))
G2G_MSG      := SKIP cub_gpu_to_gpu: CUB's gpu_to_gpu mode needs newer CCCL headers than this CUDA \
                Toolkit has: pip install nvidia-cuda-cccl, or CCCL_INCLUDE=DIR (the folder with cub/ and cuda/)

BENCH := $(BUILD)/bench/cub_sum $(BUILD)/bench/ceiling
$(BUILD)/bench/%: bench/%.cu $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
# Step 11's baselines: CUB's segmented sum with offsets (any CCCL), and with
# fixed-size segments (CCCL 3.1 or newer: those that have gpu_to_gpu).
ROWS_OBJS := $(FLOAT_OBJS) $(BUILD)/float/rows/rows.o
BENCH += $(BUILD)/bench/cub_rows
$(BUILD)/bench/cub_rows: bench/cub_rows.cu $(ROWS_OBJS) $(ROWS_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(ROWS_OBJS) $(LDLIBS)
ifneq ($(CCCL_INCLUDE),)
BENCH += $(BUILD)/bench/cub_rows_fixed
$(BUILD)/bench/cub_rows_fixed: bench/cub_rows.cu $(ROWS_OBJS) $(ROWS_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -I$(CCCL_INCLUDE) -DFIXED_SIZE $(GENCODE) -o $@ $< $(ROWS_OBJS) $(LDLIBS)
BENCH += $(BUILD)/bench/cub_gpu_to_gpu
$(BUILD)/bench/cub_gpu_to_gpu: bench/cub_gpu_to_gpu.cu $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -I$(CCCL_INCLUDE) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
bench: $(BENCH)
else
bench: $(BENCH)
	@echo "$(G2G_MSG)"
endif
print-cccl:
	@echo $(CCCL_INCLUDE)

# Every step and CUB side by side on this GPU (MAX_N=2^30 for a longer sweep),
# writing results/<gpu>/; the plots and the README table come from those files.
MAX_N ?= 2^28
# ONLY=07_cooperative,10_exact,cub measures those alone, the others' rows kept.
compare: all bench
	python3 bench/compare.py --max-n '$(MAX_N)' $(if $(ONLY),--only '$(ONLY)')
	$(if $(ONLY),,python3 bench/compare_rows.py)
# Step 11 beside CUB's segmented sums, torch and cupy: a sum for every row of
# 2^28 floats at every row length (results/<gpu>/rows.csv, rows.md, rows.svg).
# ONLY=11_rows,cub_segmented measures those alone, the others' rows kept.
compare-rows: $(ROWS_STEPS) bench
	python3 bench/compare_rows.py $(if $(ONLY),--only '$(ONLY)')
# Every program's error against the exact sum on every input, n = 2^10 to 2^24
# (uniform to 2^28), four seeds (results/<gpu>/accuracy.csv, accuracy-INPUT.svg);
# and what each input costs the sums that must not depend on it (inputs_cost.csv).
accuracy: all bench $(ANSWERS_DIR)/07_compensated $(ANSWERS_DIR)/07_compensated_front
	python3 bench/accuracy.py
inputs-cost: all bench
	python3 bench/inputs_cost.py
# Step 08's result bits for a fixed list of sizes and seeds (results/<gpu>/bits08.csv);
# the host tests check that every GPU's file holds the same bits as the CPU replica.
bits: step08
	python3 bench/bits.py
# Steps 09 and 10 on 1 GPU up to every GPU here (MULTI_GPUS=1: the one-GPU
# baseline), writing results/<gpu>-x<G>/: weak and strong scaling, the
# combine alone, the small sizes; LARGE=3*2^33 adds one sum of that many
# elements over every GPU (more than one GPU holds).
compare-multi: step08 step09 $(BUILD)/answers/10_multi_gpu
	python3 bench/compare_multi.py $(if $(MULTI_GPUS),--gpus $(MULTI_GPUS)) $(if $(LARGE),--large '$(LARGE)') \
	    $(if $(LARGE_ONLY),--large-only)
# Where a small sum's microseconds go on several GPUs (lab/multi-gpu/):
# each piece of a run of steps 09 and 10 timed alone, for G = 1 .. every GPU.
$(BUILD)/lab/collectives: lab/multi-gpu/collectives.cu $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -I$(NCCL_INC) -o $@ $< -L$(NCCL_LIBDIR) -lnccl
lab-collectives: $(BUILD)/lab/collectives
plots:
	@for d in results/*/; do [ -f $$d/compare.csv ] && python3 bench/plots.py $${d%/}; done; true
	@for d in results/*/; do [ -f $$d/accuracy.csv ] && python3 bench/accuracy.py --from $${d%/}; done; true
readme-table: step03
	python3 bench/readme_table.py

# Every tier this machine can run, the GPU tier's quick groups only;
# test-full adds the slow ones (sanitizers, answers, Harris's kernels, the
# clusters, claims, faults, several GPUs, the largest sizes). Both end with
# "N passed, N failed, N skipped".
test:
	@T="$(T)" V="$(V)" bash tests/run
test-full:
	@FULL=1 T="$(T)" V="$(V)" bash tests/run

# compute-sanitizer's four tools over every step, and over every program that
# other fragments add to SANITIZE_EXTRA (needs a GPU).
SANITIZE_N := 1,1000,2^20+3
SANITIZE_EXTRA ?=
# A target that needs a tool says so in one line, and that nothing was done.
NO_GPU_MSG = ./step$(STEP) --check-only --n 1 >/dev/null 2>&1 || { \
    echo "make $@: no usable GPU here ($$(./step$(STEP) --check-only --n 1 2>&1 >/dev/null | head -1)); nothing was done" >&2; exit 1; }
ifeq ($(shell command -v compute-sanitizer 2>/dev/null),)
sanitize:
	@echo "make sanitize: compute-sanitizer is not on the PATH (it comes with the CUDA Toolkit, in its bin/ folder); nothing was checked" >&2
	@exit 1
else
sanitize: $(STEPS) $(SANITIZE_EXTRA)
	@$(NO_GPU_MSG)
	@bash tests/sanitize.sh "$(SANITIZE_N)" $(STEPS) $(SANITIZE_EXTRA)
endif

# Nsight Compute on one step: time, DRAM throughput, occupancy, top stalls.
# (make profile is the same thing under the name other tutorials use.)
STEP  ?= 03
NCU_N ?= 2^24
NCU_METRICS := gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed \
  sm__warps_active.avg.pct_of_peak_sustained_active \
  $(foreach r,long_scoreboard barrier membar lg_throttle wait short_scoreboard,\
    smsp__average_warps_issue_stalled_$(r)_per_issue_active.ratio)
comma := ,
empty :=
space := $(empty) $(empty)
ifeq ($(shell command -v ncu 2>/dev/null),)
ncu profile:
	@echo "make $@: Nsight Compute (ncu) is not on the PATH; it comes with the CUDA Toolkit, or from https://developer.nvidia.com/nsight-compute; nothing was profiled" >&2
	@exit 1
else
ncu: step$(STEP)
	@$(NO_GPU_MSG)
	ncu --clock-control none --metrics $(subst $(space),$(comma),$(strip $(NCU_METRICS))) \
	    ./step$(STEP) --n '$(NCU_N)' --check-only
# Every step and CUB at a few sizes under Nsight Compute, with each kernel's
# SASS counts: results/<gpu>/profile.csv, the evidence the chapters quote for
# why a step is faster. ONLY=07,08 profiles those alone, the others' rows kept.
profile: all bench
	@$(NO_GPU_MSG)
	python3 bench/profile.py $(if $(ONLY),--only '$(ONLY)')
endif

# The machine code of one step, float and exact, with loads, shuffles, REDUX,
# barriers, atomics and fences marked.
sass: step$(STEP) $(BUILD)/exact/step$(STEP)
	@bash bench/sass.sh $(STEP)

print-sanitize-extra:
	@echo $(SANITIZE_EXTRA)
print-steps:
	@echo $(STEP_SRCS) $(MULTI_SRCS)
print-rows-steps:
	@echo $(ROWS_SRCS)
print-multi-steps:
	@echo $(MULTI_SRCS)
print-multi-flags:
	@$(if $(strip $(STEP09_NEEDS)),true,echo -I$(NCCL_INC) $(MPI_CFLAGS))

clean:
	rm -rf $(BUILD) $(ALL_STEPS)

# Every target the README names; (GPU) marks those that need one to do anything.
help:
	@echo "Build"
	@echo "  make [all]          steps $(FIRST_NUM)-$(LAST_NUM) as ./step$(FIRST_NUM) ... ./step$(LAST_NUM) (float); make -j2 (or -j\$$(nproc))"
	@echo "                      builds side by side"
	@echo "                      (step 09 needs NCCL and MPI; without them make says so and goes on)"
	@echo "  make stepNN         one step, e.g. make step03 && ./step03"
	@echo "  make exact          the uint32 builds, in $(BUILD)/exact/"
	@echo "  make answers        the exercise answers, in $(BUILD)/answers/"
	@echo "  make answers-rows   step 11's answers only (a softmax, bf16 rows), in $(BUILD)/answers/"
	@echo "  make bench          the CUB baselines and the bandwidth ceiling, in $(BUILD)/bench/"
	@echo "  make clean          remove what the build made"
	@echo "  make help           this list"
	@echo "  ARCH=sm_90          build for one GPU architecture only (default: this machine's GPU,"
	@echo "                      or, with none, every architecture the toolkit knows)"
	@echo "Tests"
	@echo "  make test           every test this machine can run, the GPU tier's quick groups only;"
	@echo "                      V=1 lists each test, T=unit (or build, host, docs, gpu, cli, ...) runs"
	@echo "                      one tier or group"
	@echo "  make test-full      the same and the slow GPU groups: sanitizers, answers, Harris's kernels,"
	@echo "                      clusters, claims, faults, several GPUs, the largest sizes"
	@echo "  make unit           build the host unit tests only (make test T=unit builds and runs them)"
	@echo "  make mutants        build the broken kernels the GPU tests must catch, in $(BUILD)/mutants/"
	@echo "  make ranks-programs build step 10 on several GPUs (answers/10_multi_gpu.cu), which the GPU"
	@echo "                      group ranks runs beside step 09 (needs NCCL and MPI)"
	@echo "  make sanitize       (GPU) compute-sanitizer memcheck, racecheck, synccheck, initcheck"
	@echo "  make test-large     (GPU) every step at n = 2^31+7, 3*2^30 and 2^32+3"
	@echo "  make stress         (GPU) every step back to back for 10 s each, checked throughout"
	@echo "  make faults         (GPU) device faults reported clearly"
	@echo "  make hygiene        host sanitizers, the argument fuzzer, static analysis"
	@echo "  make exact-acc-test step 10's accumulator on the CPU against an exact oracle (no GPU)"
	@echo "  make exact-acc-mutants  the same test on broken copies of it: each must fail"
	@echo "Measure and look inside"
	@echo "  make compare        (GPU) every step and CUB side by side on this GPU (results/<gpu>/)"
	@echo "  make compare-rows   (GPU) step 11 beside CUB's segmented sums, torch and cupy, a sum for every"
	@echo "                      row of 2^28 floats at every row length (results/<gpu>/rows.*)"
	@echo "  make compare-multi  (GPU) steps 09 and 10 on one GPU up to every GPU here (results/<gpu>-x<G>/);"
	@echo "                      MULTI_GPUS=1 for the one-GPU baseline; LARGE=3*2^33 adds a sum larger"
	@echo "                      than one GPU holds"
	@echo "  make bits           (GPU) step 08's result bits on this GPU (results/<gpu>/bits08.csv)"
	@echo "  make accuracy       (GPU) every program's error against the exact sum on every input,"
	@echo "                      n = 2^10 to 2^24 (uniform to 2^28), four seeds (results/<gpu>/accuracy.csv,"
	@echo "                      accuracy-INPUT.svg)"
	@echo "  make inputs-cost    (GPU) steps 07, 08, 10 and CUB's two sums timed on every input at 2^24"
	@echo "                      and 2^28 (results/<gpu>/inputs_cost.csv)"
	@echo "  make plots          redraw the plots from results/<gpu>/compare.csv and accuracy.csv (gnuplot)"
	@echo "  make readme-table   regenerate README.md's step table from results/"
	@echo "  make profile        (GPU) Nsight Compute on every step and CUB at 2^16, 2^20, 2^28 (step 11:"
	@echo "                      six shapes), with SASS counts: results/<gpu>/profile.csv; ONLY=07,08"
	@echo "  make ncu STEP=06    (GPU) Nsight Compute on one step: time, DRAM throughput, occupancy, stalls"
	@echo "  make sass STEP=04   the step's machine code, with the instructions that matter marked"
	@echo "The lab: the experiments behind the numbers, one folder each (lab/README.md)"
	@echo "  make claims         (GPU) the claims of other texts, tested here (results/<gpu>/claims.csv,"
	@echo "                      claims_checks.csv); make claims-programs builds their programs (lab/claims/)"
	@echo "  make harris         (GPU) Harris's seven classic kernels beside steps 01-07, and racecheck"
	@echo "                      on kernels 5 and 6 (results/<gpu>/harris.md; lab/harris/)"
	@echo "  make harris-kernels the seven kernels, in $(BUILD)/harris/ (float) and $(BUILD)/exact/harris/"
	@echo "  make clusters       (GPU) small sizes: the pieces of a small sum, the flag-word sum and the"
	@echo "                      cluster programs beside step 07, CUB, torch.sum, cupy.sum and the floor,"
	@echo "                      and the targets judged (results/<gpu>/clusters.md; lab/small-sizes/)"
	@echo "  make clusters-programs  the cluster programs, the flag-word sum and the probes, in $(BUILD)/clusters/"
	@echo "  make flag-sum       the flag-word sum alone: $(BUILD)/clusters/flag_sum (and the exact build)"
	@echo "  make tune           the tuning variants of the one-launch sum, in $(BUILD)/tune/ (lab/tuning/)"
	@echo "  make exact-speed    the exact reference's cost per element on the CPU (lab/exact-reference/)"
	@echo "  make lab-collectives  each piece of a small run on several GPUs timed alone (lab/multi-gpu/)"
	@echo "  step 10's variants and timeline: bash lab/exact-tail/exact_variants.sh (lab/exact-tail/)"
	@echo "The course text"
	@echo "  make docs           the HTML pages in build/docs/, and course/ (needs Pandoc)"
	@echo "  make course         course/ only: the chapters as Markdown"
	@echo "(GPU): on a machine without a GPU, the target says so in one line before it builds anything,"
	@echo "and make exits with status 2."

FORCE:
# Last resort, for a goal that no rule makes (make step12, make stpe07): one
# line that names the steps there are (make exits with status 2). .DEFAULT,
# not a match-anything rule: that one would also give its recipe to targets
# that have prerequisites and no recipe of their own (multi-tests).
.DEFAULT:
	$(error make $@: no such step or target; the steps are step$(FIRST_NUM) to step$(LAST_NUM) (make step03); make help lists the others)
print-gpu-targets:
	@echo $(GPU_TARGETS)
.PHONY: all exact unit mutants bench print-cccl compare compare-rows accuracy inputs-cost compare-multi lab-collectives bits plots readme-table test test-full print-gpu-targets sanitize print-sanitize-extra print-steps print-rows-steps print-multi-steps print-multi-flags step09-needs ncu profile sass clean help FORCE
