# lab/claims/claims.mk: the programs that test the claims of other texts, each
# lab/claims/NAME.cu or a source with a few switches (named in its header).
CLAIMS_DIR := $(BUILD)/claims
ROW_SUMS := row_sums_cg_tree row_sums_cg_shfl row_sums_plain_tree row_sums_plain_shfl row_sums_cg_shfl_vec
$(foreach p,$(ROW_SUMS),$(eval src_$(p) := lab/claims/row_sums.cu))
flags_row_sums_cg_tree     := -DWITH_CG
flags_row_sums_cg_shfl     := -DWITH_CG -DSHUFFLE
flags_row_sums_plain_shfl  := -DSHUFFLE
flags_row_sums_cg_shfl_vec := -DWITH_CG -DSHUFFLE -DVEC4
SUBWARP_WAY := cg:CG index:INDEX kernels:KERNELS
SUBWARP := $(foreach w,$(SUBWARP_WAY),$(foreach t,2 4 8 16 32,$(firstword $(subst :, ,$(w)))_$(t)))
$(foreach w,$(SUBWARP_WAY),$(foreach t,2 4 8 16 32,$(foreach p,subwarp_$(firstword $(subst :, ,$(w)))_$(t),\
  $(eval src_$(p) := lab/claims/subwarp_tiles.cu)$(eval flags_$(p) := -DWAY_$(lastword $(subst :, ,$(w))) -DTILE=$(t)))))
src_grid_sync_64   := lab/claims/grid_sync.cu
flags_grid_sync_64 := -DEXTRA_SYNCS=64
CLAIMS_NAMES := $(ROW_SUMS) one_per_thread $(SUBWARP:%=subwarp_%) grid_sync_64 multi_device
$(foreach p,$(CLAIMS_NAMES),$(eval src_$(p) ?= lab/claims/$(p).cu)$(call prog,$(CLAIMS_DIR)/$(p),$(src_$(p)),float,$(flags_$(p)),,,,claims-programs))
# Each program's name and the command that compiles it, without the
# architectures (make print-claims-builds): tests/bench.sh compiles each for one.
claims-builds = $(patsubst \n%,%,$(subst $() \n,\n,$(foreach p,$(CLAIMS_NAMES),\n$(p) $(NVCC) $(NVCCFLAGS) \
  $(NVWARN) $(flags_$(p)) -c $(src_$(p)))))
claims: all claims-programs $(ANSWERS_DIR)/07_stride_bug  ## lab: the claims of other texts, tested here (results/<gpu>/claims.csv, claims_checks.csv); make claims-programs builds their programs (lab/claims/)
	python3 lab/claims/claims.py
