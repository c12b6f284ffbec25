# tests/tests.mk: what the tests build and run (make help lists the targets;
# tests/run is the suite). Programs broken on purpose never live in steps/.
TB := $(BUILD)/tests
test test-full:  ## tests: every test this machine can run, the GPU tier's quick groups only; V=1 lists each test, T=unit (or build, host, docs, gpu, cli, ...) runs one tier or group
## make test-full ## tests: the same and the slow GPU groups: sanitizers, answers, Harris's kernels, clusters, claims, faults, several GPUs, the largest sizes
	@$(if $(filter test-full,$@),FULL=1 )T="$(T)" V="$(V)" bash tests/run
# ---- host unit tests (no GPU): compiled by the host's compiler, linked by nvcc.
define UNIT_TEST
$(TB)/$(1): tests/$(2).c $(4) $(call lib,$(3)) $(HEADERS)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(CWARN) $(call exact_flag,$(3)) -I$$(CUDA_HOME)/include -c $$< -o $$@.o
	$$(NVCC) -o $$@ $$@.o $(4) $(call lib,$(3)) $$(LDLIBS)
unit: $(TB)/$(1)
endef
$(eval $(call UNIT_TEST,unit_float,unit,float,$(BUILD)/float/multi/shard.o))
$(eval $(call UNIT_TEST,unit_exact,unit,exact,$(BUILD)/exact/multi/shard.o))
$(eval $(call UNIT_TEST,replica,replica,float))
# common/inputs/ (plain C11, OpenMP): its tests; the same with exact_round
# truncating (a wrong reference the tests must fail); the same under ASan, UBSan.
INPUTS_SRCS := $(addprefix common/inputs/,exact.c exact_round.c inputs.c infile.c npy.c)
INPUTS_TEST := $(addprefix tests/,unit_inputs.c unit_claims.c unit_exact_sum.c unit_infile.c)
INPUTS_DEPS := $(INPUTS_SRCS) $(INPUTS_TEST) tests/unit_inputs.h $(addprefix common/inputs/,exact.h inputs.h npy.h)
$(TB)/unit_inputs $(TB)/unit_inputs_san $(TB)/unit_inputs_mutant: $(INPUTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(if $(findstring san,$(notdir $@)),-O1 -g $(SAN_FLAGS),$(CFLAGS)) $(CWARN) $(OPENMP) $(if $(findstring mutant,$(notdir $@)),-Icommon/inputs) \
	    -o $@ $(INPUTS_TEST) $(if $(findstring mutant,$(notdir $@)),$(filter-out %/exact_round.c,$(INPUTS_SRCS)) $(TB)/mutant/exact_round.c,$(INPUTS_SRCS)) -lm
$(TB)/unit_inputs_mutant: $(TB)/mutant/exact_round.c
unit: $(TB)/unit_inputs $(TB)/unit_inputs_mutant $(TB)/unit_inputs_san  ## tests: build the host unit tests only (make test T=unit builds and runs them)
# Step 12's harness on the CPU: the double accumulator, references, typed files.
TYPES_TEST_SRCS := $(addprefix common/types/,dexact.c reference.c tfile.c) $(INPUTS_SRCS)
$(TB)/unit_types: tests/unit_types.c $(TYPES_TEST_SRCS) $(HEADERS) $(INPUTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -o $@ $< $(TYPES_TEST_SRCS) -lm
unit: $(TB)/unit_types
# The exact sum's cost per element beside a plain loop (lab/exact-reference/).
$(BUILD)/lab/exact_speed: lab/exact-reference/exact_speed.c $(INPUTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -o $@ $< $(filter-out %/infile.c %/npy.c,$(INPUTS_SRCS)) -lm
exact-speed: $(BUILD)/lab/exact_speed  ## lab: the exact reference's cost per element on the CPU (lab/exact-reference/)
# Step 10's accumulator on the CPU: float, float without FP64, uint32.
EXACT_ACC := -std=c++20 -O2 -Wall -Wextra -Werror -Wno-unknown-pragmas -x c++ -I$(CUDA_HOME)/include \
             -I$(CUDA_HOME)/include/cccl -Isteps
exact_acc_flags = $(if $(findstring no_fp64,$(1)),-DEXACT_NO_FP64)$(if $(filter %_exact,$(1)),-DREDUCE_EXACT)
$(TB)/exact_acc_float $(TB)/exact_acc_no_fp64 $(TB)/exact_acc_exact: tests/exact_acc_test.cu \
    $(wildcard steps/exact_*.cuh) $(HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(EXACT_ACC) $(call exact_acc_flags,$(notdir $@)) -o $@ $<
exact-acc-test: $(TB)/exact_acc_float $(TB)/exact_acc_no_fp64 $(TB)/exact_acc_exact  ## tests: step 10's accumulator on the CPU against an exact oracle (no GPU)
	for k in float no_fp64; do $(TB)/exact_acc_$$k $(TB)/exact_acc_$$k.cases && \
	    python3 tests/exact_acc_oracle.py $(TB)/exact_acc_$$k.cases || exit 1; done; $(TB)/exact_acc_exact
exact-acc-mutants:  ## tests: the same test on broken copies of it: each must fail
	@CXX=$(CXX) CUDA_HOME=$(CUDA_HOME) bash tests/exact_acc_mutants.sh $(BUILD)
# ---- mutants the GPU tests must catch: tests/mutants/NAME.cu, and sed scripts that must change a source
$(foreach f,$(wildcard tests/mutants/*.cu),$(call prog2,$(BUILD)/mutants/$(basename $(notdir $(f))),$(f),,,,,,mutants))
define SED_MUTANT
$(1): $(2) $(3)
	@mkdir -p $$(@D)
	sed -f $(2) $(3) > $$@
	@! cmp -s $$@ $(3) || { echo "$(2): changes nothing in $(3)" >&2; rm $$@; exit 1; }
endef
sed_mutant = $(eval $(call SED_MUTANT,$(1),$(2),$(3)))
sed_names  = $(patsubst tests/mutants/$(1)/%.sed,%,$(wildcard tests/mutants/$(1)/*.sed))
$(call sed_mutant,$(TB)/mutant/exact_round.c,tests/mutants/exact_round_truncate.sed,common/inputs/exact_round.c)
# tests/mutants/steps/NAME.sed over the step from_NAME names (tests/gpu/mutants.sh, fixed-order.sh).
from_drop_last    := $(wildcard steps/03_*.cu)
from_double_block := $(wildcard steps/03_*.cu)
from_grid_order   := $(wildcard steps/08_*.cu)
$(foreach m,$(call sed_names,steps),$(call sed_mutant,$(BUILD)/mutants/src/$(m).cu,tests/mutants/steps/$(m).sed,$(from_$(m)))\
  $(call prog2,$(BUILD)/mutants/$(m),$(BUILD)/mutants/src/$(m).cu,,-Isteps,,,,mutants))
$(foreach m,$(call sed_names,rows),$(call sed_mutant,$(BUILD)/mutants/rows/src/$(m).cu,tests/mutants/rows/$(m).sed,$(ROWS_SRCS))\
  $(call prog2,$(BUILD)/mutants/rows/$(m),$(BUILD)/mutants/rows/src/$(m).cu,,-Isteps,$(BUILD)/float/rows/rows.o,,,rows-mutants))
$(foreach m,$(call sed_names,types),$(call sed_mutant,$(BUILD)/mutants/types/src/$(m).cu,tests/mutants/types/$(m).sed,$(TYPES_SRCS))\
  $(call prog,$(BUILD)/mutants/types/$(m),$(BUILD)/mutants/types/src/$(m).cu,float,-Isteps,$(TYPES_OBJS),,,types-mutants))
$(foreach m,$(call sed_names,exact_gpu),$(call sed_mutant,$(BUILD)/mutants/exact_gpu/$(m).cu,tests/mutants/exact_gpu/$(m).sed,steps/10_exact.cu)\
  $(call prog,$(BUILD)/mutants/exact_gpu/$(m),$(BUILD)/mutants/exact_gpu/$(m).cu,float,-Isteps,,,,exact-gpu-mutants))
# ---- programs on several GPUs, where NCCL and MPI are, with the harness's test seams:
# NAME_virtual runs G ranks on one GPU through a stand-in NCCL (tests/fake_nccl/);
# NAME_fault: REDUCE_FAULT_RANK=r makes rank r fault. multi_test(program, source, kind)
is_fault   = $(findstring fault,$(3))
multi_test = $(call prog,$(1),$(2),$(if $(findstring exact,$(3)),exact,float),-Isteps -Ianswers $(if $(is_fault),-I$(NCCL_INC),-Itests/fake_nccl),$(if \
  $(is_fault),,tests/fake_nccl/nccl.cu) $(call multi_objs,$(3)),$(if $(is_fault),$(MULTI_LINK),$(MPI_LINK)),tests/fake_nccl/nccl.cu \
  tests/fake_nccl/nccl.h,multi-tests)
test_name  = $(if $(filter steps/%,$(1)),step$(call num,$(1)),$(basename $(notdir $(1))))
MM := $(BUILD)/mutants/multi
from_drop_rank := $(MULTI_SRCS)
from_drop_acc  := answers/10_multi_gpu.cu
ifneq ($(HAVE_MULTI),)
$(foreach f,$(MULTI_SRCS) answers/10_multi_gpu.cu answers/10_round_ranks.cu,\
  $(call multi_test,$(TB)/$(call test_name,$(f))_virtual,$(f),float-virtual)\
  $(call multi_test,$(TB)/$(call test_name,$(f))_virtual_exact,$(f),exact-virtual))
$(foreach f,$(MULTI_SRCS),$(call multi_test,$(TB)/$(call test_name,$(f))_fault,$(f),float-fault))
$(foreach m,$(call sed_names,multi),$(call sed_mutant,$(MM)/src/$(m).cu,tests/mutants/multi/$(m).sed,$(from_$(m)))\
  $(call multi_test,$(MM)/$(m),$(MM)/src/$(m).cu,float-virtual)\
  $(call multi_test,$(MM)/$(m)_exact,$(MM)/src/$(m).cu,exact-virtual)\
  $(call multi_test,$(MM)/$(m)_real,$(MM)/src/$(m).cu,float-fault))
$(call multi_test,$(MM)/shard_shift,$(MULTI_SRCS),float-shift)
$(call multi_test,$(MM)/shard_shift_exact,$(MULTI_SRCS),exact-shift)
endif
multi-tests: # (built above where NCCL and MPI are)
mutants: multi-tests  ## tests: build the broken kernels the GPU tests must catch, in build/mutants/
# ---- hygiene: host code under ASan and UBSan (every report a stop), the fuzzer
SAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_XFLAGS  := $(foreach f,$(subst $(comma), -fsanitize=,$(SAN_FLAGS)),-Xcompiler $(f)) # (one flag each for nvcc)
HYG         := $(BUILD)/hygiene
$(foreach k,float exact,$(eval $(call OBJ_RULES,$(HYG)/$(k),common,-O1 -g $$(SAN_FLAGS) $$(CWARN) $$(OPENMP) \
  $(call exact_flag,$(k)) -I$$(CUDA_HOME)/include,$(HEADERS))))
# The unit tests, linked by gcc with the static CUDA runtime as nvcc would.
$(HYG)/unit_float $(HYG)/unit_exact: $(HYG)/unit_%: tests/unit.c $(HYG)/%/multi/shard.o $(HYG)/%/libharness.a $(HEADERS)
	$(CC) -O1 -g $(SAN_FLAGS) $(CWARN) $(OPENMP) $(call exact_flag,$*) -I$(CUDA_HOME)/include -o $@ $< \
	    $(HYG)/$*/multi/shard.o $(HYG)/$*/libharness.a -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread $(LDLIBS) -lm
# The fuzzer takes from the harness only the argument parser (and the inputs' names).
$(HYG)/fuzz_args: tests/fuzz_args.c $(HYG)/float/libharness.a $(HEADERS)
	$(CC) -O1 -g $(SAN_FLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -o $@ $< $(HYG)/float/libharness.a -lm
# Every step with its host code sanitized, PTX for the oldest architecture (quick).
$(foreach f,$(STEP_SRCS) $(ROWS_SRCS),$(eval $(HYG)/step$(call num,$(f)): $(f) $(if $(call is_rows,$(call num,$(f))),\
  $(HYG)/float/rows/rows.o) $(HYG)/float/libharness.a $(HEADERS)))
$(HYG)/step%:
	$(NVCC) -O1 -std=c++20 $(SAN_XFLAGS) -gencode arch=compute_75,code=compute_75 -o $@ $(filter-out %.h %.a,$^) $(filter %.a,$^) $(LDLIBS)
HYG_STEPS ?= $(STEPS)
hygiene-build: $(HYG)/unit_float $(HYG)/unit_exact $(HYG)/fuzz_args $(HYG_STEPS:step%=$(HYG)/step%)
hygiene:  ## tests: host sanitizers, the argument fuzzer, static analysis
	@bash tests/hygiene.sh
# ---- GPU only: faults reported clearly, large inputs, long runs ------------------
$(foreach f,$(wildcard tests/faults/*.cu),$(call prog2,$(BUILD)/faults/$(basename $(notdir $(f))),$(f),,,,,,faults-build))
faults: $(STEPS) $(EXACT) faults-build  ## tests: device faults reported clearly
	@bash tests/faults.sh
LARGE_N ?= 2^31+7,3*2^30,2^32+3
test-large: $(STEPS) $(EXACT)  ## tests: every step at n = 2^31+7, 3*2^30 and 2^32+3
	@bash tests/large.sh "$(LARGE_N)"
STRESS_SECONDS ?= 10
STRESS_SEED    ?= 1
STRESS_BUILDS  ?= float exact
stress: $(STEPS) $(EXACT)  ## tests: every step back to back for 10 s each, checked throughout
	@python3 tests/stress.py --seconds $(STRESS_SECONDS) --seed $(STRESS_SEED) --builds $(STRESS_BUILDS)
