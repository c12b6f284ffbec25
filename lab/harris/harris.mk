# lab/harris/harris.mk: Harris's seven reduction kernels beside the course's steps,
# included by the main Makefile.
#
#   make harris            build, then measure all seven and steps 01-07 in the
#                          exact build (lab/harris/harris.py): results/<gpu>/harris.csv,
#                          harris.md and harris_racecheck.txt
#   make harris-kernels    build only: build/harris/harris1 ... harris7 (float) and
#                          build/exact/harris/harris1 ... harris7 (uint32)
#
# lab/harris/harris.cu holds all seven kernels; -DKERNEL=K picks the one a program runs.

HARRIS_KERNELS := 1 2 3 4 5 6 7
HARRIS_FLOAT   := $(HARRIS_KERNELS:%=$(BUILD)/harris/harris%)
HARRIS_EXACT   := $(HARRIS_KERNELS:%=$(BUILD)/exact/harris/harris%)
# The steps the kernels are set beside (steps 01-07), exact builds.
HARRIS_STEPS   := $(foreach s,01 02 03 04 05 06 07,$(BUILD)/exact/step$(s))

$(BUILD)/harris/harris%: lab/harris/harris.cu $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -DKERNEL=$* $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
$(BUILD)/exact/harris/harris%: lab/harris/harris.cu $(EXACT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -DKERNEL=$* -DREDUCE_EXACT $(GENCODE) -o $@ $< $(EXACT_OBJS) $(LDLIBS)

harris-kernels: $(HARRIS_FLOAT) $(HARRIS_EXACT)

harris: $(HARRIS_EXACT) $(HARRIS_STEPS)
	python3 lab/harris/harris.py

.PHONY: harris harris-kernels
