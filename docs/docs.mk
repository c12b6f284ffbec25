# docs/docs.mk: the course text, built with Pandoc. Included by the Makefile.
#
#   make docs        build/docs/index.html, one page per chapter, and
#                    build/docs/course.html (the whole course, one file, offline);
#                    then make course
#   make course      course/: the same chapters as plain Markdown, committed, so
#                    that they read where the repository is browsed (tests/docs.sh
#                    fails when it is stale); and the lab's page on step 10's
#                    rounds, lab/exact-tail/rounds.md, from docs/lab_exact_rounds.md
#   make lab-page    that page alone
#
# The chapters are docs/*.md. They quote the step files and the measured
# results through docs/filters/course.lua, so a page always shows the code and
# the numbers as they are when it is built. RESULTS=DIR reads the measurements
# from DIR/<gpu>/ instead of results/<gpu>/ (the tests use a fixture).

PANDOC   ?= pandoc
RESULTS  ?= results
DOCS_OUT ?= $(BUILD)/docs

# Reading order: the introduction, the primer (CUDA for a C programmer), one
# chapter per step, the comparison, the appendices (Cooperative Groups; the
# small sizes: clusters, memcpy_async and flag words; Harris's seven kernels;
# the measurement notes, from results/NOTES.md), the glossary.
DOCS_STEPS    := $(sort $(basename $(notdir $(STEP_SRCS) $(MULTI_SRCS) $(ROWS_SRCS))))
DOCS_CHAPTERS := intro primer $(DOCS_STEPS) comparison appendix_cg appendix_clusters appendix_harris notes glossary
DOCS_MD       := $(DOCS_CHAPTERS:%=docs/%.md)
DOCS_PAGES    := $(DOCS_CHAPTERS:%=$(DOCS_OUT)/%.html)

# Measurements: every results/<gpu>/ with a compare.csv, and their plots; the
# runs on several GPUs, results/<gpu>-x<G>/multi.md (make compare-multi).
DOCS_MULTI := $(sort $(wildcard $(RESULTS)/*-x*/multi.md))
DOCS_MULTI_DATA := $(wildcard $(RESULTS)/*-x*/*.csv)
DOCS_RESULT_DIRS := $(patsubst %/compare.csv,%,$(sort $(wildcard $(RESULTS)/*/compare.csv)))
DOCS_RESULT_DATA := $(wildcard $(DOCS_RESULT_DIRS:%=%/*.csv))
DOCS_PLOTS_SRC   := $(wildcard $(DOCS_RESULT_DIRS:%=%/*.svg))
# A plot is shown at results/<gpu>/NAME.svg beside the pages, whatever RESULTS is.
DOCS_PLOTS       := $(patsubst $(RESULTS)/%,$(DOCS_OUT)/results/%,$(DOCS_PLOTS_SRC))
DOCS_FIGURES     := $(patsubst docs/%,$(DOCS_OUT)/%,$(wildcard docs/figures/*.svg))
# The tables the lab's scripts write (harris.py, exact_tables.py, clusters_tables.py),
# results/<gpu>/*.md, results/*.md and lab/harris/harris_g80.md, which the chapters include.
DOCS_GENERATED := $(wildcard $(DOCS_RESULT_DIRS:%=%/*.md) $(RESULTS)/*.md) lab/harris/harris_g80.md

DOCS_FILTER   := docs/filters/course.lua
DOCS_FILTER_PARTS := $(filter-out $(DOCS_FILTER),$(wildcard docs/filters/*.lua))
DOCS_TEMPLATE := docs/template.html
# Anything a page can quote: the steps, every other file a chapter includes,
# the measurements, the other chapters' titles.
DOCS_QUOTED   := $(sort $(shell sed -n 's/.*include="\([^"]*\)".*/\1/p' $(DOCS_MD)))
DOCS_INPUTS   := $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) $(DOCS_MD) docs/index.md $(STEP_SRCS) $(DOCS_QUOTED) \
                 $(wildcard results/NOTES.md) \
                 $(DOCS_RESULT_DATA) $(DOCS_PLOTS_SRC) $(DOCS_MULTI) $(DOCS_MULTI_DATA) $(DOCS_GENERATED) docs/docs.mk

# Pandoc 2.19 renamed --self-contained to --embed-resources --standalone.
DOCS_EMBED = $(if $(shell $(PANDOC) --help 2>/dev/null | grep -e --embed-resources),--embed-resources,--self-contained)

DOCS_FLAGS = --from markdown --to html5 --standalone --fail-if-warnings \
             --template $(DOCS_TEMPLATE) --lua-filter $(DOCS_FILTER) --mathml \
             --metadata chapters="$(DOCS_CHAPTERS)" \
             --metadata results-dirs="$(DOCS_RESULT_DIRS)" \
             --metadata multi-results="$(DOCS_MULTI)" \
             --metadata results-root=$(RESULTS) \
             --metadata docs-dir=docs \
             --metadata repo-root=$(shell realpath -m --relative-to=$(DOCS_OUT) .)

PANDOC_FOUND := $(shell command -v $(PANDOC) 2>/dev/null)

# The exercise answers, one page each beside the chapters: a program as
# answers/NAME.cu.html, a Markdown answer as answers/NAME.html.
DOCS_ANSWER_SRCS  := $(filter-out answers/answers.mk,$(wildcard answers/*))
DOCS_ANSWER_PAGES := $(patsubst answers/%.md,$(DOCS_OUT)/answers/%.html,$(filter %.md,$(DOCS_ANSWER_SRCS))) \
                     $(patsubst answers/%,$(DOCS_OUT)/answers/%.html,$(filter-out %.md,$(DOCS_ANSWER_SRCS)))

# course/: the chapters as GitHub-flavoured Markdown, math kept as $...$.
COURSE_DIR   ?= course
COURSE_FLAGS  = --from markdown --to gfm+tex_math_dollars --standalone --columns 80 \
                --template docs/template.md --lua-filter $(DOCS_FILTER) \
                --metadata chapters="$(DOCS_CHAPTERS)" \
                --metadata results-dirs="$(DOCS_RESULT_DIRS)" \
                --metadata multi-results="$(DOCS_MULTI)" \
                --metadata results-root=$(RESULTS) \
                --metadata docs-dir=docs --metadata course-dir=$(COURSE_DIR)
# The lab's page on step 10's rounds: not a chapter, made with course/ by the
# same filter and a template of its own; its links are written as they read
# from the page (LAB_PAGE: where; the tests make it elsewhere and compare).
LAB_SRC  := docs/lab_exact_rounds.md
LAB_PAGE ?= lab/exact-tail/rounds.md
LAB_RENDER = mkdir -p $(dir $(LAB_PAGE)) && \
             $(PANDOC) $(COURSE_FLAGS) --template docs/template_lab.md --metadata chapter=$(basename $(notdir $(LAB_SRC))) \
                 --metadata source=$(LAB_SRC) -o $(LAB_PAGE) $(LAB_SRC)
# Everything course/ is made from; course/sources.sha256 records it.
COURSE_INPUTS = $(filter-out $(DOCS_TEMPLATE),$(DOCS_INPUTS)) docs/template.md $(wildcard docs/figures/*.svg) \
                $(LAB_SRC) docs/template_lab.md

ifeq ($(PANDOC_FOUND),)
docs docs-pages course lab-page:
	@echo "make docs: Pandoc is not installed. Install it with" >&2
	@echo "    sudo apt-get install pandoc        (Debian, Ubuntu)" >&2
	@echo "    brew install pandoc                (macOS)" >&2
	@echo "or see https://pandoc.org/installing.html, then run make docs again." >&2
	@exit 1
else
docs: $(DOCS_OUT)/index.html $(DOCS_PAGES) $(DOCS_OUT)/course.html $(DOCS_ANSWER_PAGES) course
	@echo "The course is in $(DOCS_OUT)/index.html (one page per chapter) and $(DOCS_OUT)/course.html (one file)."
# The chapters' pages alone (the tests build them from other results).
docs-pages: $(DOCS_OUT)/index.html $(DOCS_PAGES)

# Made whole each time, so that nothing of a removed chapter or chart stays.
course: $(COURSE_INPUTS)
	@rm -rf $(COURSE_DIR)/charts $(COURSE_DIR)/*.md
	@mkdir -p $(COURSE_DIR)/charts
	@for c in $(DOCS_CHAPTERS); do \
	    $(PANDOC) $(COURSE_FLAGS) --metadata chapter=$$c --metadata source=docs/$$c.md \
	        -o $(COURSE_DIR)/$$c.md docs/$$c.md || exit 1; \
	done
	@$(PANDOC) $(COURSE_FLAGS) --metadata chapter=index --metadata source=docs/index.md \
	    -o $(COURSE_DIR)/README.md docs/index.md
	@$(LAB_RENDER)
	@rmdir $(COURSE_DIR)/charts 2>/dev/null || true
	@python3 tests/course_check.py stamp $(COURSE_DIR) "$$($(PANDOC) --version | head -1)" $(sort $(COURSE_INPUTS))
	@echo "The chapters as Markdown are in $(COURSE_DIR)/ (start at $(COURSE_DIR)/README.md)."

lab-page: $(LAB_SRC) docs/template_lab.md $(DOCS_FILTER) $(DOCS_FILTER_PARTS)
	@$(LAB_RENDER)
	@echo "The lab's page on step 10's rounds is $(LAB_PAGE)."
endif

$(DOCS_OUT)/answers/%.html: answers/%.md $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) --css ../style.css --metadata chapter=answer --metadata answer-file=$< -o $@ /dev/null
$(DOCS_OUT)/answers/%.html: answers/% $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) --css ../style.css --metadata chapter=answer --metadata answer-file=$< -o $@ /dev/null

$(DOCS_OUT)/style.css: docs/style.css
	@mkdir -p $(@D)
	@cp $< $@

$(DOCS_OUT)/figures/%.svg: docs/figures/%.svg
	@mkdir -p $(@D)
	@cp $< $@

$(DOCS_OUT)/results/%.svg: $(RESULTS)/%.svg
	@mkdir -p $(@D)
	@cp $< $@

DOCS_ASSETS := $(DOCS_OUT)/style.css $(DOCS_FIGURES) $(DOCS_PLOTS)

$(DOCS_OUT)/%.html: docs/%.md $(DOCS_INPUTS) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) --toc --toc-depth 2 --css style.css --metadata chapter=$* -o $@ $<

$(DOCS_OUT)/index.html: docs/index.md $(DOCS_INPUTS) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) --css style.css --metadata chapter=index -o $@ $<

# One file with everything in it (style, figures, plots), to read offline.
$(DOCS_OUT)/course.html: docs/index.md $(DOCS_INPUTS) docs/style.css $(DOCS_FIGURES) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) $(DOCS_EMBED) --resource-path $(DOCS_OUT) --css $(DOCS_OUT)/style.css \
	    --metadata chapter=course -o $@ $<

print-course-inputs:
	@echo $(sort $(COURSE_INPUTS))

# The chapters in reading order (tests/terms.py walks them).
print-chapters:
	@echo $(DOCS_CHAPTERS)

docs-clean:
	rm -rf $(DOCS_OUT)

.PHONY: docs docs-pages docs-clean course lab-page print-course-inputs print-chapters
