# lab/small-sizes/clusters.mk: the appendix on small sizes. clusters.cu: -DMEET=... picks how
# clusters meet, -DASYNC_LOADS=1 loads through cg::memcpy_async; it needs sm_90 (built for
# older GPUs it refuses to run: clusters_sm75, for tests/clusters.sh). flag_sum.cu runs anywhere.
CLUSTERS_DIR := $(BUILD)/clusters
flags_clusters_wait  := -DMEET=MEET_WAIT
flags_clusters_pdl   := -DMEET=MEET_LAUNCH
flags_clusters_async := -DASYNC_LOADS=1
CLUSTERS_HDRS := $(addprefix lab/small-sizes/,clusters.cuh clusters_meet.cuh clusters_loads.cuh thread_sum.cuh clusters_host.h)
$(foreach p,clusters clusters_wait clusters_pdl clusters_async,$(call prog,$(CLUSTERS_DIR)/$(p),lab/small-sizes/clusters.cu,\
  float,$(flags_$(p)),,,$(CLUSTERS_HDRS),clusters-programs)$(call prog,$(BUILD)/exact/clusters/$(p),\
  lab/small-sizes/clusters.cu,exact,$(flags_$(p)),,,$(CLUSTERS_HDRS),clusters-programs))
# The probes of a small sum, piece by piece (float only: they time, and check
# only that the pieces which finish a sum finish it right).
$(call prog,$(CLUSTERS_DIR)/latency,lab/small-sizes/latency.cu,float,,,,lab/small-sizes/latency_kernels.cuh \
  lab/small-sizes/latency_launch.h lab/small-sizes/clusters.cu $(CLUSTERS_HDRS),clusters-programs)
# Built for compute capability 7.5 only (PTX): on any GPU it must refuse, clearly.
$(CLUSTERS_DIR)/clusters_sm75: lab/small-sizes/clusters.cu $(CLUSTERS_HDRS) $(call lib,float) $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVWARN) -gencode arch=compute_75,code=compute_75 -o $@ $< $(call lib,float) $(LDLIBS)
FLAG_SUM_HDRS := lab/small-sizes/flag_sum.cuh lab/small-sizes/thread_sum.cuh
$(call prog,$(CLUSTERS_DIR)/flag_sum,lab/small-sizes/flag_sum.cu,float,,,,$(FLAG_SUM_HDRS),flag-sum)
$(call prog,$(BUILD)/exact/clusters/flag_sum,lab/small-sizes/flag_sum.cu,exact,,,,$(FLAG_SUM_HDRS),flag-sum)
## make flag-sum ## lab: the flag-word sum alone: build/clusters/flag_sum (and the exact build)
clusters-programs: flag-sum  ## lab: the cluster programs, the flag-word sum and the probes, in build/clusters/
clusters: $(addprefix $(CLUSTERS_DIR)/,clusters clusters_wait clusters_pdl clusters_async flag_sum latency) step07 \
          $(BUILD)/bench/cub_sum $(BUILD)/bench/ceiling  ## lab: small sizes: the pieces of a small sum, the flag-word sum and the cluster programs beside step 07, CUB, torch.sum, cupy.sum and the floor, and the targets judged (results/<gpu>/clusters.md; lab/small-sizes/)
	python3 lab/small-sizes/clusters.py
