# pushkit-free: every routine step is a make target. See README.md and docs/internals.md.
SHELL := /bin/bash
SWIFT ?= swift
PREFIX ?= /usr/local
# Debug products are shared by `make test` and `make demo`; `make build` and `make bench` use release.
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)
# The tools and the programs they are links to, from tools.list (docs/internals.md, "Adding a tool").
# The light tools are one program, pushkit-free, chosen by the name it is called by, and those that
# serve are another, pushkit-free-server: every build here adds their links beside them
# (docs/internals.md, "One program, several names").
TOOLS_LIST := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))tools.list
tools_of = $(shell awk '!/^\#/ && NF && $$2 == "$(1)" { print $$1 }' $(TOOLS_LIST))
LINKED_TOOLS = $(call tools_of,pushkit-free)
SERVER_TOOLS = $(call tools_of,pushkit-free-server)
PROGRAMS = pushkit-free pushkit-free-server
# The tools with a manual page and completions of their own (register-apns-serve's are register-apns').
TOOLS = $(shell awk '!/^\#/ && NF == 3 { print $$1 }' $(TOOLS_LIST))
define link_tools
for tool in $(LINKED_TOOLS); do ln -sfn pushkit-free "$(1)/$$tool" || exit 1; done; \
for tool in $(SERVER_TOOLS); do ln -sfn pushkit-free-server "$(1)/$$tool" || exit 1; done
endef
SCHEMATHESIS_VERSION = 4.32.5
# The official MCP Python SDK, the client the agent tools are tested with (Tests/Tools/mcp_client.py).
MCP_VERSION = 1.30.0

.PHONY: deps demo-deps test-deps bench-deps deb deb-deps deb-test release release-check build debug test demo bench install install-files man uninstall clean fuzz sanitize soak contract tz-names \
	format format-fix hooks

# What building and running the tools needs, and nothing else (`make build`, `install`, `demo`):
# libcurl's headers and pkg-config (the CCurl bridge; the transport loads libcurl at run time), the tz
# database (quiet hours and briefings in a device's zone), libpq5 (loaded when state_file is a
# postgres:// URL), libsqlite3 (register-apns import) and strip (binutils; `make install`). `make
# test-deps` adds the tests' tools.
deps:
	@missing=""; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	command -v strip >/dev/null || missing="$$missing binutils"; \
	pkg-config --exists libcurl 2>/dev/null || missing="$$missing libcurl4-openssl-dev"; \
	[ -e /usr/share/zoneinfo/Europe/Berlin ] || missing="$$missing tzdata"; \
	{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q 'libsqlite3\.so\.0 ' || missing="$$missing libsqlite3-0"; \
	[ -e /usr/lib/x86_64-linux-gnu/libpq.so.5 ] || [ -e /usr/lib/aarch64-linux-gnu/libpq.so.5 ] \
		|| missing="$$missing libpq5"; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing what building and running need:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# The demo's script makes a throw-away key with openssl, and formats with python3 (standard library).
demo-deps: deps
	@missing=""; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	command -v python3 >/dev/null || missing="$$missing python3"; \
	if [ -n "$$missing" ]; then \
		echo "make demo-deps: installing what the demo runs:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# What the tests add (`make test`, `soak`, `contract`, `sanitize`): the command-line tools they drive
# (openssl, curl with HTTP/2, jq, nghttp, at, libfaketime for a client whose clock is behind,
# tinyproxy, systemd-analyze), PostgreSQL's server (a throw-away cluster), and the Python clients
# nobody here wrote (a PyPI APNs client, a WebSocket client, schemathesis, Apprise, Google's google-auth
# with requests for the FCM routes, and what the checks read YAML, JSON Schema and certificates with)
# in a virtual environment under the build folder,
# $(VENV): never in the system's Python, which Debian keeps for its own packages (PEP 668). The
# test targets put $(VENV)/bin first on PATH. The packages' services (atd, tinyproxy, PostgreSQL,
# logrotate's timer) are neither started nor enabled by the install (Tests/Tools/apt_install_no_start.sh):
# the tests start what they use as processes of their own.
VENV = .build/venv
APPRISE_VERSION = 2.3.0
GOOGLE_AUTH_VERSION = 2.63.0
REQUESTS_VERSION = 2.34.2
PYTHON_TEST_PACKAGES = pyyaml jsonschema kalyke-apns cryptography "websockets>=14" "schemathesis==$(SCHEMATHESIS_VERSION)" \
	"mcp==$(MCP_VERSION)" "apprise==$(APPRISE_VERSION)" "google-auth==$(GOOGLE_AUTH_VERSION)" \
	"requests==$(REQUESTS_VERSION)"
TEST_PATH = export PATH="$(abspath $(VENV))/bin:$$PATH";

test-deps: deps demo-deps
	@missing=""; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	command -v nghttp >/dev/null || missing="$$missing nghttp2-client"; \
	command -v at >/dev/null || missing="$$missing at"; \
	command -v faketime >/dev/null || missing="$$missing faketime"; \
	command -v tinyproxy >/dev/null || missing="$$missing tinyproxy"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v script >/dev/null || missing="$$missing bsdutils"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	python3 -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
		echo "make test-deps: installing what the tests drive:$$missing (no service is started or enabled)"; \
		bash Tests/Tools/apt_install_no_start.sh $$missing; \
	fi
	@[ -x "$(VENV)/bin/python3" ] || python3 -m venv "$(VENV)"
	@"$(VENV)/bin/python3" -c 'import yaml, jsonschema, kalyke, cryptography, importlib.metadata as m, sys; \
		from websockets.exceptions import InvalidStatus; import websockets.sync.client; \
		import google.auth.transport.requests, google.oauth2.service_account; \
		sys.exit(m.version("schemathesis") != "$(SCHEMATHESIS_VERSION)" or m.version("mcp") != "$(MCP_VERSION)" \
			or m.version("apprise") != "$(APPRISE_VERSION)" or m.version("google-auth") != "$(GOOGLE_AUTH_VERSION)" \
			or m.version("requests") != "$(REQUESTS_VERSION)")' 2>/dev/null \
		|| { echo "make test-deps: installing the tests' Python clients into $(VENV)"; \
			"$(VENV)/bin/python3" -m pip install --quiet $(PYTHON_TEST_PACKAGES); }

bench-deps: test-deps
	@missing=""; \
	command -v hyperfine >/dev/null || missing="$$missing hyperfine"; \
	command -v h2load >/dev/null || missing="$$missing nghttp2-client"; \
	command -v wrk >/dev/null || missing="$$missing wrk"; \
	command -v valgrind >/dev/null || missing="$$missing valgrind"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# The release build every install, benchmark and soak uses. Concrete generic types are reached
# through their metadata accessors rather than by mangled name: instantiating one by name checks its
# generic requirements by scanning every protocol conformance in the program (about 4,200 records),
# which was a sixth of a warm `apns-jwt` run (issue 19; bench/README.md). Applies to the packages
# we depend on too, argument parsing included.
RELEASE_FLAGS = --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

build: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)
	@$(call link_tools,$(RELEASE_BIN))

debug: deps
	$(SWIFT) build
	@$(call link_tools,$(DEBUG_BIN))

# A tool that crashes under test (a runtime trap) writes its backtrace to CRASH_LOGS instead of
# standard error; the logs are printed after the run, last, where CI's tail shows them. The test
# that met the crash fails on its own (with the runtime's `Fatal error` line from standard error).
CRASH_LOGS = .build/crash-logs
TESTS_WITH_CRASH_LOGS = rm -rf $(CRASH_LOGS) && mkdir -p $(CRASH_LOGS) && \
	SWIFT_BACKTRACE=enable=yes,output-to=$(abspath $(CRASH_LOGS)) PUSHKIT_BIN_DIR
define print_crash_logs
	for log in $(CRASH_LOGS)/*.log; do [ -e "$$log" ] || continue; echo "== crash report $$log"; head -c 6000 "$$log"; done
endef

test: test-deps
	$(SWIFT) build --build-tests
	@$(call link_tools,$(DEBUG_BIN))
	@$(TEST_PATH) $(TESTS_WITH_CRASH_LOGS)="$(DEBUG_BIN)" $(SWIFT) test --skip-build; status=$$?; $(print_crash_logs); exit $$status

# The long soak (issue 11): the fault soak with 1,000 devices over six rounds (two each without
# connection faults, with GOAWAY, with dropped connections) and the crash tests at ten times their
# default counts (serve's journal among them: 40 servers SIGKILLed while journaling). The tools under test are the release build `make build` makes (shared with it and
# `make bench`): the debug-built emulator manages only a few hundred requests a second once many
# streams stay open, too slow for 1,000 devices within a 5-second --timeout. The test runner itself
# is `make test`'s debug build. CI runs it after `make test`.
soak: build test-deps
	$(SWIFT) build --build-tests
	@$(call link_tools,$(DEBUG_BIN))
	@$(TEST_PATH) $(TESTS_WITH_CRASH_LOGS)="$(RELEASE_BIN)" PUSHKIT_SOAK_DEVICES=1000 PUSHKIT_SOAK_ROUNDS=6 PUSHKIT_SOAK_TIMEOUT=5 \
		PUSHKIT_SOAK_WALL_SLACK=1 PUSHKIT_SOAK_SCALE=10 \
		$(SWIFT) test --skip-build --filter 'SoakTests|CrashConsistencyTests|ServeJournalTests'; \
		status=$$?; $(print_crash_logs); exit $$status

# docs/openapi.yaml against the real register-apns serve, as `make test` checks it
# (Tests/EndToEndTests/APIContractTests.swift) but with CONTRACT_EXAMPLES test cases per operation
# and phase instead of 25, once per seed in CONTRACT_SEEDS (each a different random run). Fails on
# any finding, naming the seed.
CONTRACT_EXAMPLES ?= 500
CONTRACT_SEEDS ?= 16 1 2 3
contract: test-deps
	$(SWIFT) build --build-tests
	@$(call link_tools,$(DEBUG_BIN))
	@$(TEST_PATH) for seed in $(CONTRACT_SEEDS); do \
		echo "== make contract: seed $$seed, $(CONTRACT_EXAMPLES) examples"; \
		PUSHKIT_BIN_DIR="$(DEBUG_BIN)" PUSHKIT_CONTRACT_EXAMPLES=$(CONTRACT_EXAMPLES) PUSHKIT_CONTRACT_SEED=$$seed \
			PUSHKIT_CONTRACT_TIMEOUT=3600 $(SWIFT) test --skip-build --filter APIContractTests \
			|| { echo "make contract: findings with seed $$seed" >&2; exit 1; }; \
	done

# The tz database's zone names, in PushKitFreeTimeZones (TimeZoneNames.swift) and in docs/openapi.yaml's
# TimeZone schema, from this machine's tzdata (run after a tzdata release adds or renames a zone).
tz-names:
	python3 Tests/Tools/tz_names.py /usr/share/zoneinfo/tzdata.zi

# swift-format (it ships with the toolchain), configured by .swift-format: `format` fails on any
# finding, `format-fix` rewrites the files in place.
FORMAT_PATHS = Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources
format:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

format-fix:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

# Turns on the repository's git hooks for this clone: .githooks/commit-msg checks each commit's
# subject (at most 72 characters, in the imperative; docs/internals.md, "Commits").
hooks:
	git config core.hooksPath .githooks

demo: debug demo-deps
	@bash examples/demo.sh "$(DEBUG_BIN)"

bench: bench-deps build
	@UPDATE_DOCS=$(UPDATE_DOCS) bash bench/run.sh "$(RELEASE_BIN)"

# libFuzzer on every parser that reads outside input (Fuzz/README.md), FUZZ_SECONDS per target;
# fails if any target crashes, hangs or breaks a property.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS="$(FUZZ_SECONDS)" bash Fuzz/run.sh

# The tools (stripped: STRIP below), their manual pages, and the shell completion scripts
# argument-parser generates for bash, zsh and fish. `make uninstall` (same PREFIX and DESTDIR)
# removes exactly these files.
install: build
	@$(MAKE) --no-print-directory install-files TOOLS_BIN="$(RELEASE_BIN)"

# Manual pages (section 1) made by argument-parser's generate-manual from the same definitions as
# --help, for the tools in TOOLS_BIN (default: the release build). generate-manual is built from the
# argument-parser checkout this package resolved, in a scratch directory of its own.
TOOLS_BIN ?= $(RELEASE_BIN)
MANUAL_BUILD = $(CURDIR)/.build-manual
man:
	$(SWIFT) build --package-path "$(CURDIR)/.build/checkouts/swift-argument-parser" --scratch-path "$(MANUAL_BUILD)" \
		--product generate-manual -Xswiftc -suppress-warnings
	rm -rf "$(MANUAL_BUILD)/man1" && mkdir -p "$(MANUAL_BUILD)/man1"
	for tool in $(TOOLS); do \
		"$(MANUAL_BUILD)/debug/generate-manual" "$(TOOLS_BIN)/$$tool" --output-directory "$(MANUAL_BUILD)/man1" || exit 1; \
	done

# The programs are installed stripped, as the Debian package's are: the debug information is more
# than half of each (224 MB of a release build's two programs, against 100 MB stripped), and a
# program runs the same without it. `make install STRIP=` keeps it, for a debugger.
STRIP = strip --strip-unneeded
BIN_DIR = $(DESTDIR)$(PREFIX)/bin
MAN_DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_DIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_DIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_DIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
install-files: man
	install -d "$(BIN_DIR)" "$(MAN_DIR)" "$(BASH_DIR)" "$(ZSH_DIR)" "$(FISH_DIR)"
	for program in $(PROGRAMS); do \
		install -m 0755 "$(TOOLS_BIN)/$$program" "$(BIN_DIR)/$$program" && \
		{ [ -z "$(STRIP)" ] || $(STRIP) "$(BIN_DIR)/$$program"; } || exit 1; \
	done
	install -m 0644 packaging/pushkit-free.1 "$(MAN_DIR)/pushkit-free.1"
	ln -sfn pushkit-free.1 "$(MAN_DIR)/pushkit-free-server.1"
	$(call link_tools,$(BIN_DIR))
	for tool in $(TOOLS); do \
		install -m 0644 "$(MANUAL_BUILD)/man1/$$tool.1" "$(MAN_DIR)/$$tool.1" && \
		"$(TOOLS_BIN)/$$tool" --generate-completion-script bash > "$(BASH_DIR)/$$tool" && \
		"$(TOOLS_BIN)/$$tool" --generate-completion-script zsh > "$(ZSH_DIR)/_$$tool" && \
		"$(TOOLS_BIN)/$$tool" --generate-completion-script fish > "$(FISH_DIR)/$$tool.fish" \
		|| exit 1; \
	done

# A Debian package of the release build: stripped binaries, manual pages, completions, the service
# (its own user by sysusers.d, its directories by tmpfiles.d) and an example config, and a -dbgsym
# package of the debug information (packaging/deb/build.sh; docs/internals.md). lintian checks both
# when it is installed.
DEB_OUT = $(CURDIR)/.build/deb
deb: build man deb-deps
	@mkdir -p "$(DEB_OUT)"
	@bash packaging/deb/build.sh "$(RELEASE_BIN)" "$(MANUAL_BUILD)/man1" "$(DEB_OUT)" > "$(DEB_OUT)/last"
	@cat "$(DEB_OUT)/last"
	@lintian --tag-display-limit 0 $$(cat "$(DEB_OUT)/last") \
		|| echo "make deb: lintian's tags above are explained in docs/internals.md (the package)"

# The package installed into a clean Debian 12 root (debootstrap, no Swift), and the tools run
# there (packaging/deb/test-in-debian.sh). Needs root and the Debian mirror.
deb-test: deb
	@command -v debootstrap >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends debootstrap; }
	@bash packaging/deb/test-in-debian.sh $$(cat "$(DEB_OUT)/last")

# What building the package needs: dpkg-shlibdeps (dpkg-dev), and lintian to check it.
deb-deps:
	@missing=""; \
	command -v dpkg-shlibdeps >/dev/null || missing="$$missing dpkg-dev"; \
	command -v lintian >/dev/null || missing="$$missing lintian"; \
	if [ -n "$$missing" ]; then \
		echo "make deb-deps: installing what building the package needs:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# A release of the committed tree: refuses uncommitted changes, a version without its dated
# CHANGELOG section, or changes still under Unreleased (packaging/release.sh); then `make deb` (file
# dates in the packages set to the commit's) and, in .build/dist/<version>/, the two packages, the
# source (git archive) and SHA256SUMS. `make release-check` runs only the checks.
DIST = $(CURDIR)/.build/dist
release: release-check
	@SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) $(MAKE) --no-print-directory deb
	@bash packaging/release.sh "$(DEB_OUT)/last" "$(DIST)"

release-check:
	@bash packaging/release.sh --check

uninstall:
	for tool in $(TOOLS); do \
		rm -f "$(BIN_DIR)/$$tool" "$(MAN_DIR)/$$tool.1" "$(BASH_DIR)/$$tool" "$(ZSH_DIR)/_$$tool" "$(FISH_DIR)/$$tool.fish"; \
	done
	for program in $(PROGRAMS) $(SERVER_TOOLS); do rm -f "$(BIN_DIR)/$$program" "$(MAN_DIR)/$$program.1"; done

# The whole test suite built with AddressSanitizer, then with ThreadSanitizer, each in a scratch
# directory of its own (.build-sanitize-address, .build-sanitize-thread) so `make test`'s build is
# kept. The tools the end-to-end tests run are instrumented too; the tests hand them the
# *SAN_OPTIONS below, so their reports land in files even when a test looks only at exit codes.
# Fails when a test fails or any report was written (listed in .build-sanitize-reports).
# Leak checking is off: the short-lived tools' exit-time allocations are not leaks.
# Long (two instrumented builds, tens of minutes): not part of `make test` or CI.
SANITIZE_REPORTS = $(CURDIR)/.build-sanitize-reports
sanitize: test-deps
	@$(TEST_PATH) rm -rf "$(SANITIZE_REPORTS)" && mkdir -p "$(SANITIZE_REPORTS)"; \
	export ASAN_OPTIONS="log_path=$(SANITIZE_REPORTS)/asan:detect_leaks=0"; \
	export TSAN_OPTIONS="log_path=$(SANITIZE_REPORTS)/tsan:halt_on_error=0"; \
	failed=""; \
	for sanitizer in address thread; do \
		scratch="$(CURDIR)/.build-sanitize-$$sanitizer"; \
		$(SWIFT) build --build-tests --sanitize=$$sanitizer --scratch-path "$$scratch" || exit 1; \
		bin="$$($(SWIFT) build --sanitize=$$sanitizer --scratch-path "$$scratch" --show-bin-path)"; \
		$(call link_tools,$$bin); \
		PUSHKIT_BIN_DIR="$$bin" \
			$(SWIFT) test --skip-build --sanitize=$$sanitizer --scratch-path "$$scratch" || failed="$$failed $$sanitizer"; \
	done; \
	reports=$$(ls "$(SANITIZE_REPORTS)"); \
	if [ -n "$$reports" ]; then echo "sanitizer reports in $(SANITIZE_REPORTS):"; echo "$$reports"; \
		head -n 40 "$(SANITIZE_REPORTS)"/*; fi; \
	[ -n "$$failed" ] && echo "tests failed under:$$failed"; \
	[ -z "$$failed" ] && [ -z "$$reports" ]

clean:
	rm -rf .build .build-manual
