# lab/claims/claims.mk: what others claimed, tested here. Included by the
# Makefile.
#
#   make claims      (GPU) the sources' claims on this GPU: results/<gpu>/claims.csv
#                    and claims_checks.csv (lab/claims/claims.py)
#   make claims-programs   build the programs only
#
# The programs the claims need are built into build/claims/, each from one
# source with a few switches (the switches are in each source's header).

CLAIMS_DIR := $(BUILD)/claims

# name -> source and switches
ROW_SUMS := row_sums_cg_tree row_sums_cg_shfl row_sums_plain_tree row_sums_plain_shfl row_sums_cg_shfl_vec
$(foreach p,$(ROW_SUMS),$(eval src_$(p) := lab/claims/row_sums.cu))
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
  $(eval src_subwarp_$(w)_$(t) := lab/claims/subwarp_tiles.cu)\
  $(eval flags_subwarp_$(w)_$(t) := $(call way_flag,$(w)) -DTILE=$(t))))

src_one_per_thread  := lab/claims/one_per_thread.cu
flags_one_per_thread :=
src_grid_sync_64    := lab/claims/grid_sync.cu
flags_grid_sync_64  := -DEXTRA_SYNCS=64
src_multi_device    := lab/claims/multi_device.cu
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
	python3 lab/claims/claims.py

.PHONY: claims-programs print-claims-builds claims
