# c2fsum: the two set-up commands work from nothing on a fresh machine.
#   make demo   create .venv, install; the shipped pubmed-model3 reads whole SumPubMed test papers beside
#               LEAD / ILP / BERKELEY / pubmed-model0 with where it reads; the news model cnndm-small briefly;
#               a short training run (MINUTES=120: a model like cnndm-small from scratch)
#   make test   create .venv if needed, install (and ROUGE-1.5.5's Perl modules and a headless chromium),
#               run the whole test suite
#   make test-portability   the numerics-sensitive tests (PORTABLE_TESTS) under other instruction sets
#               (AVX2, no vector extensions) and 1 and 2 threads: what a CPU unlike this one computes
#   make model  train, evaluate and export the shipped model NAME (cnndm-small) into
#               src/c2fsum/pretrained/NAME (scripts/train_shipped.sh; MINUTES of training, default 100)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DATA   ?= ../shared/data/cnndm
PUBMED ?= ../shared/data/pubmed
WORK   ?= work/demo
MINUTES ?= 2
NAME   ?= cnndm-small
# `make model` trains for 100 minutes unless MINUTES is given (the 2 above is the demo's short run)
MODEL_MINUTES = $(if $(filter command line environment,$(origin MINUTES)),$(MINUTES),100)

.PHONY: install demo model test test-portability lint check bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first and pinned: 2.13.0 is the CPU build on this machine's disk
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,ray]'
	touch $(STAMP)

install: $(STAMP)
	@echo "c2fsum is installed in $(VENV): run '. $(BIN)/activate' (each new shell) to put it on the PATH, or call $(BIN)/c2fsum"

demo: $(STAMP)
	DATA="$(DATA)" PUBMED="$(PUBMED)" WORK="$(WORK)" MINUTES="$(MINUTES)" BIN="$(BIN)" bash scripts/demo.sh

model: $(STAMP)
	BIN="$(BIN)" MINUTES="$(MODEL_MINUTES)" bash scripts/train_shipped.sh "$(NAME)"

test: $(STAMP)
	bash .ci/install-perl.sh || echo "warning: could not install Perl modules; the official-ROUGE tests will skip"
	bash .ci/install-browser.sh || echo "warning: could not install chromium; the browser test will skip"
	$(BIN)/ruff check src tests bench
	$(BIN)/python -m pytest

# tests whose results rest on float rounding (trained models' outputs, two paths that must agree,
# one process against two): each must hold whatever kernels the CPU runs
PORTABLE_TESTS ?= tests/pretrained tests/models tests/modules tests/decoding tests/training/test_distributed.py \
	tests/training/test_lazy_training.py tests/training/test_shipped_models.py
PORTABLE_ENVS = "ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2" \
	"ATEN_CPU_CAPABILITY=default" "OMP_NUM_THREADS=1" "OMP_NUM_THREADS=2"

test-portability: $(STAMP)
	@set -e; for vars in $(PORTABLE_ENVS); do \
		echo "== $$vars"; env $$vars $(BIN)/python -m pytest -q -p no:cacheprovider $(PORTABLE_TESTS); \
	done

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

# lint, format check (see [tool.ruff.format] in pyproject.toml) and type check (mypy, [tool.mypy])
check: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/speed.py

clean:
	rm -rf $(VENV) work build *.egg-info
