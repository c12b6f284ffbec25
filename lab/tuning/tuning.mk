# lab/tuning/tuning.mk: the tuning variants of the single-launch reduction
# (lab/tuning/tune.cu; lab/tuning/README.md says what they found). Included by
# the Makefile.
#
#   make tune      every variant, in build/tune/; bash lab/tuning/tune.sh times them (GPU)
#
# LnKkMmTt = LOADS_IN_FLIGHT n, LOAD_KIND k, MAPPING m, TICKET t.
TUNE_VARIANTS ?= L2_K0_M0_T0 L4_K0_M0_T0 L8_K0_M0_T0 L4_K1_M0_T0 L4_K2_M0_T0 L8_K1_M0_T0 \
                 L4_K0_M1_T0 L8_K1_M1_T0 L4_K0_M0_T1 L4_K1_M0_T1 L4_K0_M0_T2 L4_K0_M1_T2 \
                 L4_K0_M0_T8 L4_K0_M0_T9
tune_flags = $(shell echo $(1) | sed -E 's/L([0-9]+)_K([0-9])_M([0-9])_T([0-9])/-DLOADS_IN_FLIGHT=\1 -DLOAD_KIND=\2 -DMAPPING=\3 -DTICKET=\4/')
$(BUILD)/tune/tune_%: lab/tuning/tune.cu $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) $(call tune_flags,$*) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
tune: $(TUNE_VARIANTS:%=$(BUILD)/tune/tune_%)

.PHONY: tune
