# bench/claims.mk: what others claimed, tested here; and how accurate each
# order of additions is. Included by the Makefile.
#
#   make claims      (GPU) the sources' claims on this GPU: results/<gpu>/claims.csv
#                    and claims_checks.csv (bench/claims.py)
#   make accuracy    (GPU) every program's error against the exact sum on every
#                    input, n = 2^10 to 2^24 (uniform to 2^28), four seeds:
#                    results/<gpu>/accuracy.csv and accuracy-INPUT.svg
#                    (bench/accuracy.py)
#
# The programs the claims need are built into build/claims/, each from one
# source with a few switches (the switches are in each source's header).

CLAIMS_DIR := $(BUILD)/claims

# name -> source and switches
ROW_SUMS := row_sums_cg_tree row_sums_cg_shfl row_sums_plain_tree row_sums_plain_shfl row_sums_cg_shfl_vec
$(foreach p,$(ROW_SUMS),$(eval src_$(p) := bench/row_sums.cu))
flags_row_sums_cg_tree     := -DWITH_CG
flags_row_sums_cg_shfl     := -DWITH_CG -DSHUFFLE
flags_row_sums_plain_tree  :=
flags_row_sums_plain_shfl  := -DSHUFFLE
flags_row_sums_cg_shfl_vec := -DWITH_CG -DSHUFFLE -DVEC4

SUBWARP_WAYS  := cg index kernels
SUBWARP_TILES := 2 4 8 16 32
SUBWARP := $(foreach w,$(SUBWARP_WAYS),$(foreach t,$(SUBWARP_TILES),subwarp_$(w)_$(t)))
way_flag = -DWAY_$(if $(filter cg,$(1)),CG,$(if $(filter index,$(1)),INDEX,KERNELS))
$(foreach w,$(SUBWARP_WAYS),$(foreach t,$(SUBWARP_TILES),\
  $(eval src_subwarp_$(w)_$(t) := bench/subwarp_tiles.cu)\
  $(eval flags_subwarp_$(w)_$(t) := $(call way_flag,$(w)) -DTILE=$(t))))

src_one_per_thread  := bench/one_per_thread.cu
flags_one_per_thread :=
src_grid_sync_64    := bench/grid_sync.cu
flags_grid_sync_64  := -DEXTRA_SYNCS=64
src_multi_device    := bench/multi_device.cu
flags_multi_device  :=

CLAIMS_NAMES    := $(ROW_SUMS) one_per_thread $(SUBWARP) grid_sync_64 multi_device
CLAIMS_PROGRAMS := $(CLAIMS_NAMES:%=$(CLAIMS_DIR)/%)

define CLAIM_RULE
$(CLAIMS_DIR)/$(1): $(src_$(1)) $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(1)) $(GENCODE) -o $$@ $$< $(FLOAT_OBJS) $(LDLIBS)
endef
$(foreach p,$(CLAIMS_NAMES),$(eval $(call CLAIM_RULE,$(p))))

claims-programs: $(CLAIMS_PROGRAMS)

# Each program's name and the command that compiles it, without the
# architectures: tests/bench.sh compiles every one for a single architecture.
print-claims-builds:
	@$(foreach p,$(CLAIMS_NAMES),echo '$(p) $(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(p)) -c $(src_$(p))';)

claims: all claims-programs $(ANSWERS_DIR)/07_stride_bug
	python3 bench/claims.py

accuracy: all bench $(ANSWERS_DIR)/07_compensated $(ANSWERS_DIR)/07_compensated_front
	python3 bench/accuracy.py

inputs-cost: all bench
	python3 bench/inputs_cost.py

.PHONY: claims-programs print-claims-builds claims accuracy inputs-cost
