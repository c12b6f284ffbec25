# clusters.mk: the appendix on small sizes (clusters, memcpy_async and flag
# words), included by the Makefile.
#
#   make clusters            (GPU) build, then measure (lab/small-sizes/clusters.py, about three
#                            and a half minutes on an H100): the pieces of a small sum
#                            (results/<gpu>/latency.csv), the flag-word sum and the
#                            cluster programs beside step 07, CUB, torch.sum, cupy.sum
#                            and the floor (clusters.csv, clusters_floor.csv), the
#                            tables (clusters.md), and whether the targets are met
#   make clusters-programs   build only: build/clusters/clusters, clusters_wait,
#                            clusters_pdl, clusters_async and flag_sum (float), the same
#                            in build/exact/clusters/ (uint32), and build/clusters/latency
#                            (the probes of lab/small-sizes/latency.cu)
#   make flag-sum            build/clusters/flag_sum and build/exact/clusters/flag_sum only
#
# lab/small-sizes/clusters.cu is one program; -DMEET=... picks how clusters meet, and
# -DASYNC_LOADS=1 loads through cg::memcpy_async. Cluster code needs sm_90:
# built for an older GPU it compiles, and the program refuses to run with one
# line (exit 3). clusters_sm75 is such a build, for tests/clusters.sh.
# lab/small-sizes/flag_sum.cu has no cluster in it and runs wherever the steps run.

CLUSTERS_DIR   := $(BUILD)/clusters
CLUSTERS_NAMES := clusters clusters_wait clusters_pdl clusters_async
flags_clusters       :=
flags_clusters_wait  := -DMEET=MEET_WAIT
flags_clusters_pdl   := -DMEET=MEET_LAUNCH
flags_clusters_async := -DASYNC_LOADS=1
CLUSTERS_SRCS  := lab/small-sizes/clusters.cu lab/small-sizes/clusters.cuh lab/small-sizes/clusters_meet.cuh lab/small-sizes/clusters_loads.cuh \
                  lab/small-sizes/thread_sum.cuh lab/small-sizes/clusters_host.h
CLUSTERS_FLOAT := $(CLUSTERS_NAMES:%=$(CLUSTERS_DIR)/%)
CLUSTERS_EXACT := $(CLUSTERS_NAMES:%=$(BUILD)/exact/clusters/%)

define CLUSTERS_RULE
$(CLUSTERS_DIR)/$(1): $(CLUSTERS_SRCS) $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(1)) $(GENCODE) -o $$@ $$< $(FLOAT_OBJS) $(LDLIBS)
$(BUILD)/exact/clusters/$(1): $(CLUSTERS_SRCS) $(EXACT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(flags_$(1)) -DREDUCE_EXACT $(GENCODE) -o $$@ $$< $(EXACT_OBJS) $(LDLIBS)
endef
$(foreach p,$(CLUSTERS_NAMES),$(eval $(call CLUSTERS_RULE,$(p))))

# The probes of a small sum, piece by piece (float only: they time, and check
# only that the pieces which finish a sum finish it right).
$(CLUSTERS_DIR)/latency: lab/small-sizes/latency.cu lab/small-sizes/latency_kernels.cuh lab/small-sizes/latency_launch.h $(CLUSTERS_SRCS) $(FLOAT_OBJS) $(HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)

# The program built for compute capability 7.5 only (PTX, which a newer GPU
# compiles when loading it): on any GPU it must refuse, clearly.
$(CLUSTERS_DIR)/clusters_sm75: $(CLUSTERS_SRCS) $(FLOAT_OBJS) $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -gencode arch=compute_75,code=compute_75 -o $@ $< $(FLOAT_OBJS) $(LDLIBS)

# The flag-word sum (lab/small-sizes/flag_sum.cu): blocks meet through one flagged word
# each. No cluster in it: it builds and runs wherever the steps do.
FLAG_SUM_SRCS := lab/small-sizes/flag_sum.cu lab/small-sizes/flag_sum.cuh lab/small-sizes/thread_sum.cuh
$(CLUSTERS_DIR)/flag_sum: $(FLAG_SUM_SRCS) $(FLOAT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) $(GENCODE) -o $@ $< $(FLOAT_OBJS) $(LDLIBS)
$(BUILD)/exact/clusters/flag_sum: $(FLAG_SUM_SRCS) $(EXACT_OBJS) $(HEADERS) $(STEP_HEADERS) $(BUILD)/gencode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -DREDUCE_EXACT $(GENCODE) -o $@ $< $(EXACT_OBJS) $(LDLIBS)
flag-sum: $(CLUSTERS_DIR)/flag_sum $(BUILD)/exact/clusters/flag_sum
# make sanitize checks it with the steps (the cluster programs have their own
# sanitizer runs in tests/clusters.sh, which also run only where clusters do).
SANITIZE_EXTRA += $(CLUSTERS_DIR)/flag_sum

clusters-programs: $(CLUSTERS_FLOAT) $(CLUSTERS_EXACT) $(CLUSTERS_DIR)/latency flag-sum

clusters: $(CLUSTERS_FLOAT) $(CLUSTERS_DIR)/flag_sum $(CLUSTERS_DIR)/latency step07 $(BUILD)/bench/cub_sum $(BUILD)/bench/ceiling
	python3 lab/small-sizes/clusters.py

.PHONY: clusters clusters-programs flag-sum
