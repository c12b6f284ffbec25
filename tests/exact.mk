# exact.mk: step 10's accumulator tested on the CPU; included by the Makefile.
#
#   make exact-acc-test       the accumulator's functions (steps/exact_acc.cuh) run as
#                             step 10's kernel runs them, on every kind of input, and
#                             each sum checked by tests/exact_acc_oracle.py; float,
#                             float without FP64, and uint32. A few seconds, no GPU.
#   make exact-acc-mutants    the same test on broken copies of the accumulator
#                             (tests/mutants/exact/*.sed): each must fail
#
# The test is host code, built by the host's C++ compiler: CUDA's headers give
# it __host__, __device__ and float4.

EXACT_ACC_CXXFLAGS := -std=c++20 -O2 -Wall -Wextra -Werror -Wno-unknown-pragmas -x c++ -I$(CUDA_HOME)/include -I$(CUDA_HOME)/include/cccl -Isteps
EXACT_ACC_DEPS     := tests/exact_acc_test.cu $(wildcard steps/exact_*.cuh) $(HEADERS)
EXACT_ACC_TESTS    := $(BUILD)/tests/exact_acc_float $(BUILD)/tests/exact_acc_no_fp64 \
                      $(BUILD)/tests/exact_acc_exact

$(BUILD)/tests/exact_acc_float: $(EXACT_ACC_DEPS)
	@mkdir -p $(@D)
	$(CXX) $(EXACT_ACC_CXXFLAGS) -o $@ $<
$(BUILD)/tests/exact_acc_no_fp64: $(EXACT_ACC_DEPS)
	@mkdir -p $(@D)
	$(CXX) $(EXACT_ACC_CXXFLAGS) -DEXACT_NO_FP64 -o $@ $<
$(BUILD)/tests/exact_acc_exact: $(EXACT_ACC_DEPS)
	@mkdir -p $(@D)
	$(CXX) $(EXACT_ACC_CXXFLAGS) -DREDUCE_EXACT -o $@ $<

exact-acc-test: $(EXACT_ACC_TESTS)
	$(BUILD)/tests/exact_acc_float $(BUILD)/tests/exact_acc_float.cases
	python3 tests/exact_acc_oracle.py $(BUILD)/tests/exact_acc_float.cases
	$(BUILD)/tests/exact_acc_no_fp64 $(BUILD)/tests/exact_acc_no_fp64.cases
	python3 tests/exact_acc_oracle.py $(BUILD)/tests/exact_acc_no_fp64.cases
	$(BUILD)/tests/exact_acc_exact

exact-acc-mutants:
	@CXX=$(CXX) CUDA_HOME=$(CUDA_HOME) bash tests/exact_acc_mutants.sh $(BUILD)

# Step 10 with one change that only the GPU runs (tests/mutants/exact_gpu/NAME.sed
# on a copy of steps/10_exact.cu): the GPU tests must catch each.
EXACT_GPU_MUTANTS := $(patsubst tests/mutants/exact_gpu/%.sed,$(BUILD)/mutants/exact_gpu/%,$(wildcard tests/mutants/exact_gpu/*.sed))
$(BUILD)/mutants/exact_gpu/%.cu: tests/mutants/exact_gpu/%.sed steps/10_exact.cu
	@mkdir -p $(@D)
	sed -f $< steps/10_exact.cu > $@
	@! cmp -s $@ steps/10_exact.cu || { echo "$<: changes nothing in steps/10_exact.cu" >&2; rm $@; exit 1; }
$(BUILD)/mutants/exact_gpu/%: $(BUILD)/mutants/exact_gpu/%.cu $(FLOAT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -Isteps $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
exact-gpu-mutants: $(EXACT_GPU_MUTANTS)

.PHONY: exact-acc-test exact-acc-mutants exact-gpu-mutants

# Step 10 from a copy of its sources in $(BUILD)/variants/NAME/, the step and
# its accumulator with one piece changed: the GPU tier's mutants
# (tests/mutants/exact_gpu/). The lab's timing variants build with the rule as
# it was at the commit they measured (lab/exact-tail/tree.sh).
ifeq ($(strip $(STEP09_NEEDS)),)
$(BUILD)/variants/%/step10: $(BUILD)/variants/%/10_exact.cu $(BUILD)/variants/%/exact_acc.cuh \
                            $(BUILD)/variants/%/exact_digits.cuh $(BUILD)/variants/%/exact_group.cuh \
                            $(BUILD)/variants/%/exact_meet.cuh $(FLOAT_OBJS) \
                            $(MULTI_OBJS_FLOAT) $(MULTI_HEADERS) $(BUILD)/gencode
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -Isteps -I$(NCCL_INC) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(MULTI_OBJS_FLOAT) \
	    $(LDLIBS) $(MULTI_LINK)
endif
