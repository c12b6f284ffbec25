# answers.mk: the exercise answers, each a program on the harness built like the
# steps: build/answers/NAME (float) and, where it makes sense, NAME_exact (uint32).
ANSWERS_DIR := $(BUILD)/answers
# Most answers are answers/NAME.cu; variant(NAME, SOURCE, FLAGS) builds another
# answer's source with a switch, so that the two versions stay one diff apart.
variant = $(eval src_$(1) := $(2))$(eval flags_$(1) := $(3))
$(call variant,01_interleaved_strided,01_interleaved,-DSTRIDED_INDEX)
$(call variant,04_subwarp_tiles_8,04_subwarp_tiles,-DTILE=8)
$(call variant,07_compensated_front,07_compensated,-DFRONT_ONLY)
# Wrong on purpose: step 10's fast path kept with a group of 64; the softmax
# padded with 0 where it takes -inf; argmin's ties to the last index, NaN last;
# the int8 dot product in an int32 accumulator. RMSNorm's statistic is 11_bf16
# summing squares.
$(call variant,10_group64_span24,10_group64,-DGROUP64_SPAN=24)
$(call variant,11_softmax_pad0,11_softmax,-DPAD=0.0f)
$(call variant,12_argmin_ties_last,12_argmin,-DTIES_LAST)
$(call variant,12_argmin_nan_last,12_argmin,-DNAN_LAST)
$(call variant,12_int8_dot_acc32,12_int8_dot,-DACC32)
$(call variant,12_rms_rows,11_bf16,-DSQUARES)
ANSWERS_TYPES := 12_argmin 12_argmin_ties_last 12_argmin_nan_last 12_int8_dot 12_int8_dot_acc32 12_rms_rows
# Float and exact, but float only where an exact build has no meaning: 07_normalize
# (divides by the sum), 07_plain_launch (never sums), cluster_occupancy (not a sum),
# flag_no_clear (wrong whatever the type), 10_group64_span24 (the exact build has no
# fast path), step 11's (a softmax, bf16 rows) and step 12's (not float sums).
ANSWERS_BOTH  := 00_racy 01_racy_shared 04_warp_aggregated 01_interleaved 01_interleaved_strided 03_warp_xor \
                 04_row_sums 04_subwarp_tiles 04_subwarp_tiles_8 04_binary_partition 06_no_fence 06_acq_rel \
                 07_stride_bug 07_compensated 07_compensated_front 08_chunk_2048 08_fixed_point 10_group64 \
                 flag_block0
ANSWERS_FLOAT := 07_normalize 07_plain_launch 10_group64_span24 flag_no_clear cluster_occupancy \
                 11_softmax 11_softmax_pad0 11_bf16 $(ANSWERS_TYPES)
asrc = answers/$(or $(src_$(1)),$(1)).cu
$(foreach a,$(ANSWERS_BOTH),$(call prog2,$(ANSWERS_DIR)/$(a),$(call asrc,$(a)),,$(flags_$(a)),,,,answers))
$(foreach a,$(ANSWERS_FLOAT),$(call prog,$(ANSWERS_DIR)/$(a),$(call asrc,$(a)),float,$(flags_$(a)),,,,answers))
# The answers of the appendix on small sizes include the programs' own headers.
$(ANSWERS_DIR)/flag_block0 $(ANSWERS_DIR)/flag_block0_exact $(ANSWERS_DIR)/flag_no_clear: lab/small-sizes/flag_sum.cuh lab/small-sizes/thread_sum.cuh
$(ANSWERS_DIR)/cluster_occupancy: lab/small-sizes/clusters.cuh lab/small-sizes/clusters_meet.cuh lab/small-sizes/clusters_loads.cuh
# Answers on several GPUs, built like step 09 where NCCL and MPI are.
## make answers ## build: the exercise answers, in build/answers/
ifneq ($(HAVE_MULTI),)
$(foreach a,09_allreduce 10_multi_gpu 10_round_ranks,$(foreach k,float exact,$(call prog,$(ANSWERS_DIR)/$(a)$(if \
  $(filter exact,$(k)),_exact),answers/$(a).cu,$(k),-I$(NCCL_INC),$(call multi_objs,$(k)),$(MULTI_LINK),answers/nccl_comms.cuh,answers)))
endif
ranks-programs: $(if $(HAVE_MULTI),$(ANSWERS_DIR)/10_multi_gpu $(ANSWERS_DIR)/10_multi_gpu_exact)  ## tests: build step 10 on several GPUs (answers/10_multi_gpu.cu), which the GPU group ranks runs beside step 09 (needs NCCL and MPI)
# Step 11's answers that are programs: the build tier of the tests builds them.
answers-rows: $(addprefix $(ANSWERS_DIR)/,11_softmax 11_softmax_pad0 11_bf16)  ## build: step 11's answers only (a softmax, bf16 rows), in build/answers/
answers-types: $(addprefix $(ANSWERS_DIR)/,$(ANSWERS_TYPES))  ## build: step 12's answers only (argmin, an int8 dot product, RMSNorm's statistic), in build/answers/
# Clean under make sanitize's four tools: the float-and-exact answers and 07_normalize.
# Left out on purpose: 00_racy, 01_racy_shared and 06_no_fence (a race or a missing
# fence is their lesson), 07_stride_bug (wrong on purpose); 10_group64 not yet run under them.
ANSWERS_SANITIZE := $(addprefix $(ANSWERS_DIR)/,$(filter-out 00_racy 01_racy_shared 06_no_fence 07_stride_bug \
                    10_group64,$(ANSWERS_BOTH)) 07_normalize)
