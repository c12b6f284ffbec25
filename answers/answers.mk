# answers.mk: the exercise answers, included by the main Makefile.
#
#   make answers                          every answer, in build/answers/
#   make answers-rows                     step 11's (11_softmax, 11_bf16)
#   build/answers/00_racy --n 2^20        run one
#
# Each answer is a full program on the harness, built with the steps' flags,
# architectures and harness objects: build/answers/NAME (float) and, where an
# integer sum makes sense, build/answers/NAME_exact (uint32).

ANSWER_NAMES := 00_racy 01_racy_shared 04_warp_aggregated \
                01_interleaved 01_interleaved_strided 03_warp_xor \
                04_row_sums 04_subwarp_tiles 04_subwarp_tiles_8 04_binary_partition \
                06_no_fence 06_acq_rel 07_normalize 07_plain_launch 07_stride_bug \
                07_compensated 07_compensated_front 08_chunk_2048 08_fixed_point \
                10_group64 10_group64_span24 flag_block0 flag_no_clear cluster_occupancy \
                11_softmax 11_softmax_pad0 11_bf16

# Most answers are answers/NAME.cu. These are another answer's source built
# with a switch, so that the two versions stay one diff apart.
src_01_interleaved_strided   := 01_interleaved
flags_01_interleaved_strided := -DSTRIDED_INDEX
src_04_subwarp_tiles_8       := 04_subwarp_tiles
flags_04_subwarp_tiles_8     := -DTILE=8
src_07_compensated_front     := 07_compensated
flags_07_compensated_front   := -DFRONT_ONLY
# Step 10's test for the fast path kept with a group of 64: wrong on purpose.
src_10_group64_span24        := 10_group64
flags_10_group64_span24      := -DGROUP64_SPAN=24
# The softmax with the row's end padded with 0 where it takes -inf: wrong on purpose.
src_11_softmax_pad0          := 11_softmax
flags_11_softmax_pad0        := -DPAD=0.0f

# 07_normalize divides by the sum, which has no meaning for the modular
# integers of the exact build, and 07_plain_launch never gets to a sum; the
# answers of the appendix on small sizes that are not sums (cluster_occupancy)
# or are wrong on purpose in a way the element type does not change
# (flag_no_clear), step 10's fast path with a span too wide (the exact
# build has no fast path), and step 11's answers, a softmax and bf16 rows
# (their input is floats by nature): they are built for float only.
ANSWERS_FLOAT_ONLY := 07_normalize 07_plain_launch 10_group64_span24 flag_no_clear cluster_occupancy \
                      11_softmax 11_softmax_pad0 11_bf16

ANSWERS_DIR := $(BUILD)/answers
answer_src = answers/$(or $(src_$(1)),$(1)).cu

# ANSWER_RULES(name): the float program and, unless it is float only, the exact one.
define ANSWER_RULES
$(ANSWERS_DIR)/$(1): $(call answer_src,$(1)) $(FLOAT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(1)) $(GENCODE) -o $$@ $$< $(FLOAT_OBJS) $(LDLIBS)
ANSWERS += $(ANSWERS_DIR)/$(1)
ifeq ($(filter $(1),$(ANSWERS_FLOAT_ONLY)),)
$(ANSWERS_DIR)/$(1)_exact: $(call answer_src,$(1)) $(EXACT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(1)) -DREDUCE_EXACT $(GENCODE) -o $$@ $$< $(EXACT_OBJS) $(LDLIBS)
ANSWERS += $(ANSWERS_DIR)/$(1)_exact
endif
endef

ANSWERS :=
$(foreach a,$(ANSWER_NAMES),$(eval $(call ANSWER_RULES,$(a))))
# The answers of the appendix on small sizes include the programs' own headers.
$(ANSWERS_DIR)/flag_block0 $(ANSWERS_DIR)/flag_block0_exact $(ANSWERS_DIR)/flag_no_clear: lab/small-sizes/flag_sum.cuh lab/small-sizes/thread_sum.cuh
$(ANSWERS_DIR)/cluster_occupancy: lab/small-sizes/clusters.cuh lab/small-sizes/clusters_meet.cuh lab/small-sizes/clusters_loads.cuh

# Answers on several GPUs are built like steps 09 and 10, where NCCL and MPI
# are. MULTI_ANSWER(name, source, flags): build/answers/NAME, float, and
# build/answers/NAME_exact, uint32, unless the flags make it float only (a
# third argument); NAME's source is answers/SOURCE.cu.
define MULTI_ANSWER
$(ANSWERS_DIR)/$(1): answers/$(2).cu $(FLOAT_OBJS) $(MULTI_OBJS_FLOAT) $(MULTI_HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) $$(NVWARN) -I$$(NCCL_INC) $(3) $$(GENCODE) -o $$@ $$< $$(FLOAT_OBJS) $$(MULTI_OBJS_FLOAT) $$(LDLIBS) $$(MULTI_LINK)
ANSWERS += $(ANSWERS_DIR)/$(1)
ifeq ($(4),)
$(ANSWERS_DIR)/$(1)_exact: answers/$(2).cu $(EXACT_OBJS) $(MULTI_OBJS_EXACT) $(MULTI_HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) $$(NVWARN) -I$$(NCCL_INC) $(3) -DREDUCE_EXACT $$(GENCODE) -o $$@ $$< $$(EXACT_OBJS) $$(MULTI_OBJS_EXACT) $$(LDLIBS) $$(MULTI_LINK)
ANSWERS += $(ANSWERS_DIR)/$(1)_exact
endif
endef
ifeq ($(strip $(STEP09_NEEDS)),)
$(eval $(call MULTI_ANSWER,09_allreduce,09_allreduce,))
$(eval $(call MULTI_ANSWER,10_multi_gpu,10_multi_gpu,))
$(eval $(call MULTI_ANSWER,10_round_ranks,10_round_ranks,))
$(ANSWERS_DIR)/09_allreduce $(ANSWERS_DIR)/09_allreduce_exact \
    $(ANSWERS_DIR)/10_multi_gpu $(ANSWERS_DIR)/10_multi_gpu_exact $(ANSWERS_DIR)/10_round_ranks \
    $(ANSWERS_DIR)/10_round_ranks_exact: answers/nccl_comms.cuh
endif

answers: $(ANSWERS)
# What the quick GPU group `ranks` runs beside step 09: step 10 on several
# GPUs (tests/multi.sh); nothing where NCCL or MPI is missing.
ranks-programs: $(if $(strip $(STEP09_NEEDS)),,$(ANSWERS_DIR)/10_multi_gpu $(ANSWERS_DIR)/10_multi_gpu_exact)

# Step 11's answers that are programs: the build tier of the tests builds
# them, GPU or not (tests/run), and tests/answers_rows.sh runs them.
ANSWERS_ROWS := $(addprefix $(ANSWERS_DIR)/,11_softmax 11_softmax_pad0 11_bf16)
answers-rows: $(ANSWERS_ROWS)

# Answers that must be clean under all four compute-sanitizer tools (float
# builds, like the steps). Left out on purpose: 00_racy and 01_racy_shared
# (races are their lesson), 06_no_fence (a missing fence, its lesson),
# 07_plain_launch (it stops on purpose), 07_stride_bug and flag_no_clear
# (wrong on purpose) and cluster_occupancy (it sums nothing).
SANITIZE_EXTRA += $(addprefix $(ANSWERS_DIR)/,04_warp_aggregated 01_interleaved \
                  01_interleaved_strided 03_warp_xor 04_row_sums 04_subwarp_tiles 04_subwarp_tiles_8 \
                  04_binary_partition 06_acq_rel 07_normalize 07_compensated 07_compensated_front \
                  08_chunk_2048 08_fixed_point flag_block0)

.PHONY: answers answers-rows ranks-programs
