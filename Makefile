# leasesim: the two set-up commands are `make run` and `make test`.
GO        ?= go
SEEDS     ?= 1-300
PARALLEL  ?=
OUT       ?= out/sweep
FUZZTIME  ?= 30s
BENCHCOUNT ?= 6
BIN       ?= bin/simrun
# VERSION is stamped into simrun (--version): git describe of the checkout, or nothing outside one.
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null)
# IMAGE is the simrun image make image builds and deploy/k8s's manifests run.
IMAGE     ?= ghcr.io/leasesim/simrun:latest
# The Go modules under zoo/, each with its own go.mod (the core never imports them): make test and lint
# vet and test each. zoo-modules fails when a zoo/*/go.mod is missing from this list.
ZOO_MODULES := zoo/consul zoo/etcd zoo/etcdraft zoo/hraft zoo/k8s zoo/redsync zoo/zookeeper
# Every module besides the core that make test and lint vet and test: the CLI (cmd/simrun, which links the
# zoo's event-host systems and so is a module of its own, docs/decisions/0041), deploy's tests and the zoo.
MODULES := cmd/simrun deploy $(ZOO_MODULES)

.PHONY: run test bench bench-gohost fuzz lint build image clean tune-example etcd-stories consul-tables zoo-modules zookeeper-results explore-table explore-table-gohost realtime-stories verdicts-load etcd-robustness

## image: the simrun image deploy/k8s's Jobs run (needs docker; deploy's tests check the manifests name it).
image:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) -f deploy/Dockerfile .

## build: bin/simrun (BIN), built in its own module, cmd/simrun.
build:
	$(GO) -C cmd/simrun build -ldflags "-X main.stamp=$(VERSION)" -o $(abspath $(BIN)) .

## run: the main job on built-in defaults: a sweep of the built-in scenarios, with a summary and a report.
run: build
	$(BIN) sweep --scenario all --seeds $(SEEDS) --out $(OUT) $(if $(PARALLEL),--parallel $(PARALLEL),)

## test: everything CI checks (vet, tests, and the race detector, with -short's fewer seeds, on the kernel,
## the real-time runtime, the scenario determinism tests and the parallel sweep), then deploy's and every
## module under zoo/; simrun's module, the longest, is vetted and tested beside them all (its output printed
## after). The core's go mod graph names no zoo dependency (internal/coredeps).
test: zoo-modules
	$(GO) vet ./...
	@log=$$(mktemp); \
	( cd cmd/simrun && $(GO) vet ./... && $(GO) test -count=1 ./... ) >$$log 2>&1 & simrun=$$!; \
	modules() { for m in $(filter-out cmd/simrun,$(MODULES)); do \
		echo "== $$m (its own module)"; ( cd $$m && $(GO) vet ./... && $(GO) test -count=1 ./... ) || return 1; \
	done; }; \
	$(GO) test -count=1 ./... && \
	$(GO) test -count=1 -race -short ./sim/... ./lease/... ./sweep/... ./gohost/... ./simnet/... && \
	$(GO) test -count=1 -race -short -run '^TestDeterminism$$' ./scenarios/ && \
	modules; rest=$$?; \
	wait $$simrun; rc=$$?; echo "== cmd/simrun (its own module, tested beside the rest)"; cat $$log; rm -f $$log; \
	[ $$rest -eq 0 ] && [ $$rc -eq 0 ]

## realtime-stories: the verdicts of real runs on loopback, which depend on timing and so are no part of
## make test: each story runs STORY_RUNS (20) times and prints "realtime story NAME: reproduced K/N (P%)";
## it fails below STORY_MIN_RATE percent (100).
realtime-stories:
	@out=$$(mktemp); status=0; \
	LEASESIM_REALTIME_STORIES=$(or $(STORY_RUNS),20) LEASESIM_REALTIME_MIN_RATE=$(or $(STORY_MIN_RATE),100) \
		$(GO) test -count=1 -v -run '^TestRealtimeStory' ./lease/realtime/ >$$out 2>&1 || status=$$?; \
	LEASESIM_REALTIME_STORIES=$(or $(STORY_RUNS),20) LEASESIM_REALTIME_MIN_RATE=$(or $(STORY_MIN_RATE),100) \
		$(GO) -C cmd/simrun test -count=1 -v -run '^TestRealtimeStory' . >>$$out 2>&1 || status=$$?; \
	grep -E '^(realtime story|--- FAIL|FAIL|ok)|not reproduced|Error' $$out; rm -f $$out; exit $$status

## verdicts-load: VERDICT_HISTORIES (1000) histories of the catalogue under every implementation simrun knows
## (leasesim's, the mutants, the zoo's), judged as simrun check judges a file, one at a time and then 8 at
## once: prints how many differ (it must be 0) and fails if a verdict differs or mentions wall time.
verdicts-load:
	@out=$$(mktemp); status=0; \
	LEASESIM_VERDICT_HISTORIES=$(or $(VERDICT_HISTORIES),1000) $(GO) -C cmd/simrun test -count=1 -v -timeout 60m \
		-run '^TestVerdictsDoNotDependOnLoad$$' . >$$out 2>&1 || status=$$?; \
	grep -E '^(verdicts under load|--- FAIL|FAIL|ok)|Error' $$out; rm -f $$out; exit $$status

## bench: benchmarks, each BENCHCOUNT times, printed with ratios (of medians) against baselines measured
## in the same run: the kernel against a bare heap and synctest, a scenario's event against the kernel's,
## the lease workload on leasesim against the same workload as goroutines under testing/synctest, the
## 500-contender herd's peak memory (under simrun's GC policy and Go's default), the swarm's cost per event
## as its duration, holders, workers and tasks grow, and a catalogue sweep's throughput.
bench:
	{ $(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) ./sim/ && \
	  $(GO) test -run '^$$' -bench 'Scenario|LeaseWorkload' -benchtime 30x -benchmem -count $(BENCHCOUNT) ./scenarios/ && \
	  $(GO) test -run '^$$' -bench 'Herd500' -benchmem -count $(BENCHCOUNT) ./scenarios/ && \
	  $(GO) test -run '^$$' -bench 'SwarmScaling' -benchtime 2x -benchmem -count $(BENCHCOUNT) ./scenarios/ && \
	  $(GO) test -run '^$$' -bench 'Sweep' -benchtime 1x -count $(BENCHCOUNT) ./sweep/ && \
	  $(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) ./checker/ ; } | $(GO) run ./internal/benchratio

## bench-gohost: what the goroutine host costs: client-go's election (zoo/k8s) under gohost against the same
## election under plain testing/synctest over simnet (and over net.Pipe), on one core, with the ratio of
## medians (wall and CPU time). The BENCHCOUNT rounds interleave the three, so that a shared machine's
## changing load falls on each alike (-count would run each one's rounds back to back).
bench-gohost:
	( cd zoo/k8s && for i in $$(seq $(BENCHCOUNT)); do \
		$(GO) test -run '^$$' -bench 'Election' -benchtime 40x -cpu 1 . || exit 1; done ) | $(GO) run ./internal/benchratio

## fuzz: each parser's fuzz target for FUZZTIME (the schedule, workload and history readers, seed sets,
## summaries' seed sets and histograms).
FUZZ_TARGETS := faults:FuzzParse workload:FuzzReader history:FuzzReader history/leasewire:FuzzReadHistory \
	sweep:FuzzParseSeeds sweep:FuzzSeedSetJSON scenarios:FuzzSeedListSet internal/dist:FuzzHistogramJSON \
	history/jepsen:FuzzReadLog history/jepsen:FuzzReadEDN
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ./$$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg/ || exit $$?; \
	done

## zookeeper-results: the tables of zoo/zookeeper/RESULTS.md: every story × configuration over seeds 1-ZK_SEEDS
## (200), each seed run twice (verified), the first failing seed of each shrunk and replayed; written to
## out/zookeeper-results.md (about 5 minutes on 2 cores).
zookeeper-results:
	@mkdir -p out
	cd zoo/zookeeper && ZOOKEEPER_SEEDS=$(or $(ZK_SEEDS),200) ZOOKEEPER_RESULTS=$(CURDIR)/out/zookeeper-results.md \
		$(GO) test -count=1 -run '^TestMeasure$$' -timeout 60m .

## explore-table: docs/explore.md's table: for each public mutant and each zoo mutant or variant of the event host,
## runs to the first failure of the random catalogue sweep, of swarm seeds and of simrun explore (explorer seeds
## 1-EXPLORE_SEEDS, 3), within EXPLORE_BUDGET runs (100); written to out/explore-table.md (minutes on 2 cores).
## EXPLORE_SCENARIO=all explores every scenario at once (simrun explore --scenario all) instead of swarm.
explore-table:
	@mkdir -p out
	EXPLORE_TABLE=$(CURDIR)/out/explore-table.md EXPLORE_BUDGET=$(or $(EXPLORE_BUDGET),100) \
		EXPLORE_SEEDS=$(or $(EXPLORE_SEEDS),3) EXPLORE_SCENARIO=$(EXPLORE_SCENARIO) $(GO) -C cmd/simrun test -count=1 -run '^TestExploreTable$$' -timeout 120m -v .

## explore-table-gohost: docs/explore.md's goroutine-host table: for each goroutine-host implementation of the zoo,
## runs to the first failure of its catalogue sweep, of the seeds of each scenario whose nemesis draws the most fault
## kinds, and of simrun explore on it (explorer seeds 1-EXPLORE_SEEDS, 3), within EXPLORE_BUDGET runs (100);
## EXPLORE_IMPLS=a,b picks rows; EXPLORE_SCENARIO=all gives each implementation one row, all its scenarios at once.
## Written to out/explore-table-gohost.md (worker processes: tens of minutes).
explore-table-gohost:
	@mkdir -p out
	EXPLORE_TABLE_GOHOST=$(CURDIR)/out/explore-table-gohost.md EXPLORE_BUDGET=$(or $(EXPLORE_BUDGET),100) \
		EXPLORE_SEEDS=$(or $(EXPLORE_SEEDS),3) EXPLORE_IMPLS=$(EXPLORE_IMPLS) EXPLORE_SCENARIO=$(EXPLORE_SCENARIO) \
		$(GO) -C cmd/simrun test -count=1 -run '^TestExploreTableGoHost$$' -timeout 120m -v .

## zoo-modules: every zoo/*/go.mod is in ZOO_MODULES and every cmd/*/go.mod in MODULES, so that no module goes
## untested.
zoo-modules:
	@for m in $(patsubst %/go.mod,%,$(wildcard zoo/*/go.mod)); do \
		case " $(ZOO_MODULES) " in *" $$m "*) ;; *) echo "Makefile: $$m has a go.mod but is not in ZOO_MODULES"; exit 1;; esac; \
	done
	@for m in $(patsubst %/go.mod,%,$(wildcard cmd/*/go.mod)); do \
		case " $(MODULES) " in *" $$m "*) ;; *) echo "Makefile: $$m has a go.mod but is not in MODULES"; exit 1;; esac; \
	done

## lint: formatting, vet and staticcheck (of the core, of simrun's and deploy's modules and of every module under zoo/). staticcheck is pinned and
## fetched through the module proxy on first use.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: zoo-modules
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@for m in $(MODULES); do ( cd $$m && $(GO) vet ./... && $(STATICCHECK) ./... ) || exit $$?; done

## tune-example: tune example workloads over a grid that shows the trade-off (TTL × renew × checkpoint, on the same
## seeds, at most 2 store writes/s); prints each table and writes out/tune/NAME/tune.json and tune.html.
## TUNE_WORKLOADS="steady-batch bursty-queue frequent-deploys" tunes all three; TUNE_SEEDS sets the seeds (1-50).
tune-example: build
	@for w in $(or $(TUNE_WORKLOADS),steady-batch); do \
		echo "== examples/$$w.jsonl"; \
		$(BIN) tune --workload examples/$$w.jsonl --ttl 2s,5s,10s,20s --renew ttl/3,ttl/4,ttl/6 \
			--checkpoint 2u,5u,10u,none --seeds $(or $(TUNE_SEEDS),1-50) --max-store-writes 2/s \
			$(if $(PARALLEL),--parallel $(PARALLEL),) --out out/tune/$$w || exit $$?; \
	done

## etcd-stories: real etcd v3.7.3 (child processes built with go build, a TCP fault proxy on loopback) judged by the
## same checkers: the three stories of zoo/etcd, ETCD_RUNS times each (20); prints each story's verdicts, its
## reproduction rate and its run directories (about 20 minutes on 2 cores).
etcd-stories:
	cd zoo/etcd && $(GO) run ./cmd/etcdstories -n $(or $(ETCD_RUNS),20)

## etcd-robustness: etcd's own robustness-test client (tests/v3 v3.7.3, unchanged) records ROBUSTNESS_ROUNDS (1)
## rounds of zoo/etcd/robustness's lease traffic against real etcd under four fault plans; each history is judged
## by etcd's model and by leasesim's lessor specification (one line per run, then the counts). Fails if etcd
## accepts a history leasesim does not, or etcd rejects one. make test judges the recorded ones in testdata.
etcd-robustness:
	cd zoo/etcd && $(GO) run ./cmd/etcdrobustness -rounds $(or $(ROBUSTNESS_ROUNDS),1)

## consul-tables: zoo/consul's RESULTS.md tables: every story x configuration over seeds 1-CONSUL_SEEDS (200), each
## seed run twice (Verify), the first failing seed of each shrunk and replayed; written to out/consul-results.md.
consul-tables:
	mkdir -p out
	cd zoo/consul && CONSUL_SEEDS=$(or $(CONSUL_SEEDS),200) CONSUL_RESULTS=$(CURDIR)/out/consul-results.md \
		$(GO) test -count=1 -run TestMeasure -timeout 120m .

clean:
	rm -rf bin out
