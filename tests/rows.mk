# Step 11 with one change that only the GPU runs (tests/mutants/rows/NAME.sed
# on a copy of steps/11_rows.cu), float and exact: tests/rows.sh must catch each.
ROWS_MUTANTS := $(foreach m,$(patsubst tests/mutants/rows/%.sed,%,$(wildcard tests/mutants/rows/*.sed)),\
                  $(BUILD)/mutants/rows/$(m) $(BUILD)/mutants/rows/$(m)_exact)
$(BUILD)/mutants/rows/src/%.cu: tests/mutants/rows/%.sed steps/11_rows.cu
	@mkdir -p $(@D)
	sed -f $< steps/11_rows.cu > $@
	@! cmp -s $@ steps/11_rows.cu || { echo "$<: changes nothing in steps/11_rows.cu" >&2; rm $@; exit 1; }
$(BUILD)/mutants/rows/%_exact: $(BUILD)/mutants/rows/src/%.cu $(EXACT_OBJS) $(BUILD)/exact/rows/rows.o $(ROWS_HEADERS) $(BUILD)/gencode
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -Isteps -DREDUCE_EXACT $(GENCODE) -o $@ $< $(EXACT_OBJS) $(BUILD)/exact/rows/rows.o $(LDLIBS)
$(BUILD)/mutants/rows/%: $(BUILD)/mutants/rows/src/%.cu $(FLOAT_OBJS) $(BUILD)/float/rows/rows.o $(ROWS_HEADERS) $(BUILD)/gencode
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -Isteps $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(BUILD)/float/rows/rows.o $(LDLIBS)
rows-mutants: $(ROWS_MUTANTS)
.PHONY: rows-mutants
