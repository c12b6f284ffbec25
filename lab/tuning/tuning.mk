# lab/tuning/tuning.mk: the tuning variants of the single-launch reduction
# (lab/tuning/tune.cu; make tune builds them, lab/tuning/tune.sh times them).
# LnKkMmTt = LOADS_IN_FLIGHT n, LOAD_KIND k, MAPPING m, TICKET t.
## make tune ## lab: the tuning variants of the one-launch sum, in build/tune/ (lab/tuning/)
## step 10's variants ## lab: and its timeline: bash lab/exact-tail/exact_variants.sh (lab/exact-tail/)
TUNE_VARIANTS ?= L2_K0_M0_T0 L4_K0_M0_T0 L8_K0_M0_T0 L4_K1_M0_T0 L4_K2_M0_T0 L8_K1_M0_T0 \
                 L4_K0_M1_T0 L8_K1_M1_T0 L4_K0_M0_T1 L4_K1_M0_T1 L4_K0_M0_T2 L4_K0_M1_T2 \
                 L4_K0_M0_T8 L4_K0_M0_T9
tune_flags = $(join -DLOADS_IN_FLIGHT= -DLOAD_KIND= -DMAPPING= -DTICKET=,$(foreach p,L K M T,$(patsubst \
  $(p)%,%,$(filter $(p)%,$(subst _, ,$(1))))))
$(foreach v,$(TUNE_VARIANTS),$(call prog,$(BUILD)/tune/tune_$(v),lab/tuning/tune.cu,float,$(call tune_flags,$(v)),,,,tune))
