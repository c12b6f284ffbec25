# tests/reliability.mk: the reliability tests' programs and targets, included
# by the Makefile. See results/RELIABILITY.md for what each one measured.
#
#   make hygiene      host code under AddressSanitizer + UBSan, the argument
#                     fuzzer, cppcheck and clang-tidy (tests/hygiene.sh; CI)
#   make faults       programs whose kernels fault on purpose, and the checks
#                     that the harness reports it clearly (tests/faults.sh; GPU)
#   make test-large   every step, float and exact, at n = 2^31+7, 3*2^30 and
#                     2^32+3 (tests/large.sh; GPU, not in CI)
#   make stress       every step launched back to back for STRESS_SECONDS,
#                     every result checked (tests/stress.py; GPU, not in CI)

# ---- sanitizer builds of the host code ------------------------------------------
# -fno-sanitize-recover=all turns every UBSan report into a stop, like ASan's.
SAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CFLAGS  := -O1 -g $(SAN_FLAGS)
# nvcc splits -Xcompiler values at commas, so each flag goes on its own.
SAN_XFLAGS  := $(foreach f,-fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all \
                 -fno-omit-frame-pointer,-Xcompiler $(f))
CUDART_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread
HYG         := $(BUILD)/hygiene
# The sanitized steps carry PTX for the oldest architecture the course
# supports: quick to build, and the driver compiles it for any newer GPU.
HYG_GENCODE := -gencode arch=compute_75,code=compute_75

$(HYG)/float/%.o: common/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -c $< -o $@
$(HYG)/exact/%.o: common/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) $(CWARN) $(OPENMP) -DREDUCE_EXACT -I$(CUDA_HOME)/include -c $< -o $@

# The unit tests, linked by gcc with the static CUDA runtime, as nvcc would.
$(HYG)/unit_float: tests/unit.c $(HARNESS:%=$(HYG)/float/%.o) $(HYG)/float/multi/shard.o $(HEADERS)
	$(CC) $(SAN_CFLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -o $@ $< \
	    $(HARNESS:%=$(HYG)/float/%.o) $(HYG)/float/multi/shard.o $(CUDART_LIBS) $(LDLIBS) -lm
$(HYG)/unit_exact: tests/unit.c $(HARNESS:%=$(HYG)/exact/%.o) $(HYG)/exact/multi/shard.o $(HEADERS)
	$(CC) $(SAN_CFLAGS) $(CWARN) $(OPENMP) -DREDUCE_EXACT -I$(CUDA_HOME)/include -o $@ $< \
	    $(HARNESS:%=$(HYG)/exact/%.o) $(HYG)/exact/multi/shard.o $(CUDART_LIBS) $(LDLIBS) -lm

# The fuzzer needs only the argument parser (and the names of the inputs).
FUZZ_OBJS := $(addprefix $(HYG)/float/,args.o inputs/inputs.o inputs/exact.o inputs/exact_round.o)
$(HYG)/fuzz_args: tests/fuzz_args.c $(FUZZ_OBJS) $(HEADERS)
	$(CC) $(SAN_CFLAGS) $(CWARN) $(OPENMP) -I$(CUDA_HOME)/include -o $@ $< $(FUZZ_OBJS) -lm

# Every step with its host code sanitized: the misuse table runs against these.
define HYGIENE_STEP
$(HYG)/step$(1): $(2) $(HARNESS:%=$(HYG)/float/%.o) $(HEADERS)
	$(NVCC) -O1 -std=c++20 $(SAN_XFLAGS) $(HYG_GENCODE) -o $$@ $(2) $(HARNESS:%=$(HYG)/float/%.o) $(LDLIBS)
endef
$(foreach f,$(STEP_SRCS),$(eval $(call HYGIENE_STEP,$(call num,$(f)),$(f))))
# Step 11 links the harness's rows/ part too.
define HYGIENE_ROWS_STEP
$(HYG)/step$(1): $(2) $(HARNESS:%=$(HYG)/float/%.o) $(HYG)/float/rows/rows.o $(ROWS_HEADERS)
	$(NVCC) -O1 -std=c++20 $(SAN_XFLAGS) $(HYG_GENCODE) -o $$@ $(2) $(HARNESS:%=$(HYG)/float/%.o) $(HYG)/float/rows/rows.o $(LDLIBS)
endef
$(foreach f,$(ROWS_SRCS),$(eval $(call HYGIENE_ROWS_STEP,$(call num,$(f)),$(f))))

# HYG_STEPS=step00 step07 ... builds only those steps (tests/hygiene.sh's quick run).
HYG_STEPS ?= $(STEPS)
HYGIENE := $(HYG)/unit_float $(HYG)/unit_exact $(HYG)/fuzz_args $(HYG_STEPS:step%=$(HYG)/step%)
hygiene-build: $(HYGIENE)
hygiene:
	@bash tests/hygiene.sh
# What tests/hygiene.sh needs from here, as shell assignments.
hygiene-vars:
	@echo "SAN_FLAGS='$(SAN_FLAGS)'; CUDA_INC='$(CUDA_HOME)/include'"

# ---- programs that fault on purpose (never in steps/) -------------------------------
FAULT_SRCS := $(wildcard tests/faults/*.cu)
FAULTS     := $(foreach f,$(FAULT_SRCS),$(BUILD)/faults/$(basename $(notdir $(f))) \
                                        $(BUILD)/faults/$(basename $(notdir $(f)))_exact)
$(BUILD)/faults/%_exact: tests/faults/%.cu $(EXACT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -DREDUCE_EXACT $(GENCODE) -o $@ $< $(EXACT_OBJS) $(LDLIBS)
$(BUILD)/faults/%: tests/faults/%.cu $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
faults-build: $(FAULTS)
faults: $(STEPS) $(EXACT) $(FAULTS)
	@bash tests/faults.sh

# ---- large inputs and long runs (GPU; not part of make test) ------------------------
LARGE_N ?= 2^31+7,3*2^30,2^32+3
test-large: $(STEPS) $(EXACT)
	@bash tests/large.sh "$(LARGE_N)"

STRESS_SECONDS ?= 10
STRESS_SEED    ?= 1
STRESS_BUILDS  ?= float exact
stress: $(STEPS) $(EXACT)
	@python3 tests/stress.py --seconds $(STRESS_SECONDS) --seed $(STRESS_SEED) --builds $(STRESS_BUILDS)

.PHONY: hygiene hygiene-build hygiene-vars faults faults-build test-large stress
