# conform: the conformance suite and the reference tool host.
#
#   make conformance   run every scenario of both packs against the embedded reference host
#   make test          every test: ginkgo specs and godog features, with -race
#   make bench         benchmarks, then each one's ratio to a bare net/http handler
#   make latency       the wall time of both packs out of process at 0 and 50 ms round trip
#   make determinism   both packs 20 times at the default concurrency, each run's verdicts against one at a time
#   make build         bin/conform and bin/toolhost
#   make install       conform and toolhost into $(go env GOPATH)/bin (or GOBIN)

GO       ?= go
PACKAGES ?= ./...
BENCH    ?= .
# Several runs per benchmark: the ratio table takes the median of them.
BENCHFLAGS ?= -count 3
FORMAT   ?= pretty
# The version build and install stamp into both binaries (conform --version,
# and the clientInfo conform sends): git describe of this clone. Outside a
# git clone it is empty and nothing is stamped; the binaries then say what
# the go command knows (internal/buildinfo).
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null)
LDFLAGS  := $(if $(VERSION),-ldflags '-X github.com/conform-mcp/conform/internal/buildinfo.stamped=$(VERSION)')

.PHONY: all build install conformance test lint unit bench latency determinism clean

all: build

build:
	$(GO) build $(LDFLAGS) -o bin/conform ./cmd/conform
	$(GO) build $(LDFLAGS) -o bin/toolhost ./cmd/toolhost

install:
	$(GO) install $(LDFLAGS) ./cmd/conform ./cmd/toolhost

# Both packs run even when the first fails, and make fails when either
# fails (exit 1) or cannot start (exit 2); an incomplete run (exit 3) says in
# its report what it could not judge, as the reference host's AUD-1 is.
conformance:
	@status=0; dir="$$(mktemp -d)"; trap 'rm -rf "$$dir"' EXIT; \
	$(GO) build -o "$$dir/conform" ./cmd/conform || exit 2; \
	for pack in source mcp-authorization; do \
		"$$dir/conform" run --spec $$pack --format $(FORMAT); rc=$$?; \
		if [ $$rc -ne 0 ] && [ $$rc -ne 3 ]; then status=1; fi; \
	done; \
	exit $$status

test: lint unit

lint:
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PACKAGES)

unit:
	$(GO) test -race -count=1 -timeout 20m $(PACKAGES)

# benchratio copies go test's output and appends the ratio table; it fails
# when the output reports a failure, so the pipe does not hide one.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(BENCHFLAGS) $(PACKAGES) | $(GO) run ./cmd/benchratio

# Two reference hosts behind proxies that add half the round trip each way;
# RTT lists the round trips to measure.
RTT ?= 0,50ms
latency: build
	$(GO) run ./cmd/latencybench --conform bin/conform --toolhost bin/toolhost --rtt '$(RTT)' $(if $(CONCURRENCY),--concurrency $(CONCURRENCY))

# Verdicts, report order and the exit code do not depend on the
# concurrency: both packs run RUNS times at the default concurrency against
# the embedded reference host, each compared with a run one scenario at a
# time (harness/inprocess/concurrency_test.go; make test runs it 3 times,
# under -race).
RUNS ?= 20
determinism:
	CONFORM_DETERMINISM_RUNS=$(RUNS) $(GO) test -count=1 -timeout 20m ./harness/inprocess -args -ginkgo.focus='scenarios at once'

clean:
	rm -rf bin reports
