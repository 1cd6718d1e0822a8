# fjkit — every target works on a fresh machine that has only Go.
# Tools that are not part of Go (staticcheck) are installed from the module
# proxy at a pinned version into ./bin, so nothing depends on the machine.

GO          ?= go
PKGS        := ./...
# The concurrency packages: their tests race owners against thieves and
# workers against each other, so they also run under other GOMAXPROCS.
CONC_PKGS   := ./wsdeque/ ./forkjoin/
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
DEVBIN      := $(CURDIR)/devbin
FUZZTIME    ?= 10s

.PHONY: all test test-short vet lint api apicheck api-release bench stress fuzz devbin clean

all: test

# The test command CI runs (.ci/run): vet, then every test under the race
# detector, then the concurrency packages again with one P and with four
# (more Ps than this machine may have CPUs), so that the one-CPU and the
# over-subscribed schedules are tested wherever CI runs. Long soak runs
# stay behind -short; `make stress` runs them. Under the race detector the
# pools of par, algos and cmd run in strand mode, where the detector sees
# every race between forked strands; forkjoin's own tests run the
# scheduler, with its synchronization visible to the detector, except its
# strand tests (Strand, RaceReport), which the -cpu run skips. par's tests
# then run once more on the scheduler (FJKIT_RACE=scheduler), beside the
# -cpu run, which leaves a CPU free for most of its time. Last, the
# work/span measurement's tests, in the build that has it (fjkit_workspan).
test: vet apicheck
	$(GO) test -race -short -count=1 -timeout 9m $(PKGS)
	@FJKIT_RACE=scheduler $(GO) test -race -short -count=1 -timeout 9m ./par/ > .par-scheduler.log 2>&1 & pid=$$!; \
	echo "FJKIT_RACE=scheduler $(GO) test -race -short -count=1 -timeout 9m ./par/ (beside the next)"; \
	echo "$(GO) test -race -short -count=1 -timeout 9m -cpu 1,4 -skip 'Strand|RaceReport' $(CONC_PKGS)"; \
	$(GO) test -race -short -count=1 -timeout 9m -cpu 1,4 -skip 'Strand|RaceReport' $(CONC_PKGS); s=$$?; \
	wait $$pid; p=$$?; sed 's/^/scheduler: /' .par-scheduler.log; rm -f .par-scheduler.log; \
	test $$s -eq 0 && test $$p -eq 0
	$(GO) test -tags fjkit_workspan -short -count=1 -run 'WorkSpan' ./forkjoin/ ./par/ ./cmd/fjbench/

vet:
	$(GO) vet $(PKGS)

# The exported API of every public package (docs/api.md). `make api` writes
# api/fjkit.txt from the code; `make apicheck` fails when api/fjkit.txt
# records a feature the code lacks, or when a feature of the latest release
# (api/vX.Y.Z.txt) is gone without CHANGELOG.md's Unreleased section naming
# it under Breaking. `make api-release V=v0.4.0` freezes the snapshot as a
# release's, once CHANGELOG.md has that version's section.
api:
	$(GO) run ./internal/apicheck -w

apicheck:
	$(GO) run ./internal/apicheck

api-release: api
	@test -n "$(V)" || { echo 'usage: make api-release V=vX.Y.Z'; exit 2; }
	cp api/fjkit.txt api/$(V).txt
	$(GO) run ./internal/apicheck

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: vet $(STATICCHECK)
	$(STATICCHECK) $(PKGS)

# Benchmarks: one run, ratios visible side by side.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=1 $(PKGS)

# Long concurrency runs (no -short): the full stress sizes, three times, under -race.
stress:
	$(GO) test -race -count=3 -timeout 60m -run 'Stress|Race|Linear|Exactly|Concurrent|UTS|LongerThanMaxInt' $(CONC_PKGS) ./algos/
	FJKIT_CHAOS=60s $(GO) test -race -count=1 -timeout 20m -run 'Chaos' ./forkjoin/

# A short fuzz of each fuzz target (go test -fuzz takes one target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

# Static binaries for a machine without Go (fjbench and each package's tests).
devbin:
	mkdir -p $(DEVBIN)
	CGO_ENABLED=0 $(GO) build -o $(DEVBIN)/fjbench ./cmd/fjbench
	@set -e; for pkg in wsdeque forkjoin algos; do \
		CGO_ENABLED=0 $(GO) test -c -o $(DEVBIN)/$$pkg.test ./$$pkg; \
	done

clean:
	rm -rf $(BIN) $(DEVBIN)
