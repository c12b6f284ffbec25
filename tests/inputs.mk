# tests/inputs.mk: the input distributions, the exact sum and the user's
# file (common/inputs/: exact.c, exact_round.c, inputs.c, infile.c, npy.c), their
# host tests and the exact sum's speed; included by the Makefile.
#
#   make unit          builds these tests too (tests/run's group "inputs"
#                      runs them: tests/inputs.sh)
#   make exact-speed   build/lab/exact_speed: ns per element of the exact
#                      sum beside a plain loop, and of drawing each input
#                      (lab/exact-reference/)
#
# These modules are plain C11 with OpenMP: no CUDA needed to build or test them.
INPUTS_SRCS      := $(addprefix common/inputs/,exact.c exact_round.c inputs.c infile.c npy.c)
INPUTS_HDRS      := $(addprefix common/inputs/,exact.h inputs.h npy.h)
INPUTS_TEST_SRCS := $(addprefix tests/,unit_inputs.c unit_claims.c unit_exact_sum.c unit_infile.c)
INPUTS_DEPS      := $(INPUTS_SRCS) $(INPUTS_HDRS) $(INPUTS_TEST_SRCS) tests/unit_inputs.h
INPUTS_SAN       := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
INPUTS_TESTS     := $(BUILD)/tests/unit_inputs $(BUILD)/tests/unit_inputs_mutant \
                    $(BUILD)/tests/unit_inputs_san

# The tests; the same with exact_round truncating instead of rounding to
# nearest (a wrong reference: the tests must fail it); the same under
# AddressSanitizer and UndefinedBehaviorSanitizer.
$(BUILD)/tests/unit_inputs: $(INPUTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -o $@ $(INPUTS_TEST_SRCS) $(INPUTS_SRCS) -lm
# The mutant's exact_round.c is made by a sed script, which must change it.
$(BUILD)/tests/mutant/exact_round.c: common/inputs/exact_round.c tests/mutants/exact_round_truncate.sed
	@mkdir -p $(@D)
	sed -f tests/mutants/exact_round_truncate.sed $< > $@
	@! cmp -s $@ $< || { echo "tests/mutants/exact_round_truncate.sed changes nothing" >&2; rm $@; exit 1; }
$(BUILD)/tests/unit_inputs_mutant: $(INPUTS_DEPS) $(BUILD)/tests/mutant/exact_round.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -Icommon/inputs -o $@ $(INPUTS_TEST_SRCS) \
	    $(filter-out %/exact_round.c,$(INPUTS_SRCS)) $(BUILD)/tests/mutant/exact_round.c -lm
$(BUILD)/tests/unit_inputs_san: $(INPUTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(INPUTS_SAN) $(CWARN) $(OPENMP) -o $@ $(INPUTS_TEST_SRCS) $(INPUTS_SRCS) -lm
unit: $(INPUTS_TESTS)

$(BUILD)/lab/exact_speed: lab/exact-reference/exact_speed.c $(INPUTS_SRCS) $(INPUTS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -o $@ $< $(filter-out %/infile.c %/npy.c,$(INPUTS_SRCS)) -lm
exact-speed: $(BUILD)/lab/exact_speed
.PHONY: exact-speed
