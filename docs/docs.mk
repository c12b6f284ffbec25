# docs/docs.mk: the course text, built with Pandoc. The chapters (docs/*.md) quote the
# steps and the results through docs/filters/course.lua; course/ is committed (the
# tests fail when it is stale). RESULTS=DIR reads DIR/<gpu>/, not results/<gpu>/.
PANDOC   ?= pandoc
RESULTS  ?= results
DOCS_OUT ?= $(BUILD)/docs
# Reading order: introduction, primer, a chapter per step, comparison, appendices, notes, glossary.
DOCS_STEPS    := $(sort $(basename $(notdir $(STEP_SRCS) $(MULTI_SRCS) $(ROWS_SRCS) $(TYPES_SRCS))))
DOCS_CHAPTERS := intro primer $(DOCS_STEPS) comparison appendix_cg appendix_clusters appendix_harris notes glossary
DOCS_MD       := $(DOCS_CHAPTERS:%=docs/%.md)
DOCS_PAGES    := $(DOCS_CHAPTERS:%=$(DOCS_OUT)/%.html)
# Measurements: results/<gpu>/ with a compare.csv, the runs on several GPUs, Harris, clusters.
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
# Anything a page can quote: the steps, files a chapter includes, the measurements.
DOCS_QUOTED   := $(sort $(shell sed -n 's/.*include="\([^"]*\)".*/\1/p' $(DOCS_MD)))
DOCS_INPUTS   := $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) $(DOCS_MD) docs/index.md $(STEP_SRCS) $(DOCS_QUOTED) \
                 $(wildcard results/NOTES.md) \
                 $(DOCS_RESULT_DATA) $(DOCS_PLOTS_SRC) $(DOCS_MULTI) $(DOCS_MULTI_DATA) $(DOCS_GENERATED) docs/docs.mk

# Pandoc 2.19 renamed --self-contained to --embed-resources --standalone.
DOCS_EMBED = $(if $(shell $(PANDOC) --help 2>/dev/null | grep -e --embed-resources),--embed-resources,--self-contained)
DOCS_META  = --metadata chapters="$(DOCS_CHAPTERS)" --metadata results-dirs="$(DOCS_RESULT_DIRS)" \
             --metadata multi-results="$(DOCS_MULTI)" --metadata results-root=$(RESULTS) --metadata docs-dir=docs
DOCS_FLAGS = --from markdown --to html5 --standalone --fail-if-warnings \
             --template $(DOCS_TEMPLATE) --lua-filter $(DOCS_FILTER) --mathml $(DOCS_META) \
             --metadata repo-root=$(shell realpath -m --relative-to=$(DOCS_OUT) .)
PANDOC_FOUND := $(shell command -v $(PANDOC) 2>/dev/null)
DOCS_ASSETS  := $(DOCS_OUT)/style.css $(DOCS_FIGURES) $(DOCS_PLOTS)
# The exercise answers, a page each: answers/NAME.cu.html, answers/NAME.html (Markdown).
DOCS_ANSWER_SRCS  := $(filter-out answers/answers.mk,$(wildcard answers/*))
DOCS_ANSWER_PAGES := $(patsubst answers/%.md,$(DOCS_OUT)/answers/%.html,$(filter %.md,$(DOCS_ANSWER_SRCS))) \
                     $(patsubst answers/%,$(DOCS_OUT)/answers/%.html,$(filter-out %.md,$(DOCS_ANSWER_SRCS)))
# course/: the chapters as GitHub-flavoured Markdown, math kept as $...$.
COURSE_DIR   ?= course
COURSE_FLAGS  = --from markdown --to gfm+tex_math_dollars --standalone --columns 80 \
                --template docs/template.md --lua-filter $(DOCS_FILTER) $(DOCS_META) --metadata course-dir=$(COURSE_DIR)
# The lab's page on step 10's rounds: made with course/, by a template of its own,
# its links as they read from the page (LAB_PAGE: the tests make it elsewhere).
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
	@printf '%s\n' "make docs: Pandoc is not installed. Install it with" "    sudo apt-get install pandoc        (Debian, Ubuntu)" \
	    "    brew install pandoc                (macOS)" "or see https://pandoc.org/installing.html, then run make docs again." >&2; exit 1
else
docs: $(DOCS_OUT)/index.html $(DOCS_PAGES) $(DOCS_OUT)/course.html $(DOCS_ANSWER_PAGES) course  ## text: the HTML pages in build/docs/, and course/ (needs Pandoc)
	@echo "The course is in $(DOCS_OUT)/index.html (one page per chapter) and $(DOCS_OUT)/course.html (one file)."
docs-pages: $(DOCS_OUT)/index.html $(DOCS_PAGES)
# Made whole each time, so that nothing of a removed chapter or chart stays.
course: $(COURSE_INPUTS)  ## text: course/ only: the chapters as Markdown
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
ANSWER_PAGE = @mkdir -p $(@D); echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) --css ../style.css --metadata chapter=answer \
              --metadata answer-file=$< -o $@ /dev/null
$(DOCS_OUT)/answers/%.html: answers/%.md $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) | $(DOCS_ASSETS)
	$(ANSWER_PAGE)
$(DOCS_OUT)/answers/%.html: answers/% $(DOCS_FILTER) $(DOCS_FILTER_PARTS) $(DOCS_TEMPLATE) | $(DOCS_ASSETS)
	$(ANSWER_PAGE)
$(DOCS_OUT)/style.css $(DOCS_FIGURES): $(DOCS_OUT)/%: docs/%
	@mkdir -p $(@D)
	@cp $< $@
$(DOCS_OUT)/results/%.svg: $(RESULTS)/%.svg
	@mkdir -p $(@D)
	@cp $< $@
$(DOCS_OUT)/%.html: docs/%.md $(DOCS_INPUTS) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) $(if $(filter index,$*),,--toc --toc-depth 2) --css style.css \
	    --metadata chapter=$* -o $@ $<
# One file with everything in it (style, figures, plots), to read offline.
$(DOCS_OUT)/course.html: docs/index.md $(DOCS_INPUTS) docs/style.css $(DOCS_FIGURES) | $(DOCS_ASSETS)
	@mkdir -p $(@D)
	@echo "  pandoc  $@"; $(PANDOC) $(DOCS_FLAGS) $(DOCS_EMBED) --resource-path $(DOCS_OUT) --css $(DOCS_OUT)/style.css \
	    --metadata chapter=course -o $@ $<
# make print-course-inputs, print-chapters (tests/docs.sh, tests/terms.py).
course-inputs = $(sort $(COURSE_INPUTS))
chapters      = $(DOCS_CHAPTERS)
docs-clean:
	rm -rf $(DOCS_OUT)
