// Command latencybench measures how long a whole `conform run` takes across a
// network: it starts two reference hosts (a target and its peer), puts a
// proxy in front of each that holds every chunk it forwards for a delay in
// each direction, and times both packs, out of process, at each round trip
// asked for. A run's requests go one after another, so its time grows with
// the round trip; this is where that growth is measured.
//
//	make latency                     # builds bin/, then 0 ms and 50 ms round trips
//	go run ./cmd/latencybench --conform bin/conform --toolhost bin/toolhost --rtt 0,50ms
//
// It prints one line per pack and round trip: the wall time, the exit code,
// and conform's own summary line.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	conform := flag.String("conform", "bin/conform", "the conform binary to time")
	toolhost := flag.String("toolhost", "bin/toolhost", "the toolhost binary to serve the target and the peer")
	rtts := flag.String("rtt", "0,50ms", "round trips to measure, comma-separated; half of each is added each way")
	concurrency := flag.String("concurrency", "", "conform run's --concurrency (default: conform's own)")
	flag.Parse()
	if *concurrency != "" {
		extra = append(extra, "--concurrency", *concurrency)
	}
	if err := run(*conform, *toolhost, *rtts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "latencybench:", err)
		os.Exit(1)
	}
}

func run(conform, toolhost, rtts string, out io.Writer) error {
	for _, field := range strings.Split(rtts, ",") {
		rtt, err := parseRTT(field)
		if err != nil {
			return err
		}
		for _, pack := range []string{"source", "mcp-authorization"} {
			line, err := measure(conform, toolhost, pack, rtt)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", pack, rtt, err)
			}
			fmt.Fprintln(out, line)
		}
	}
	return nil
}

// parseRTT reads "0" or a duration.
func parseRTT(s string) (time.Duration, error) {
	if s = strings.TrimSpace(s); s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("round trip %q: a duration such as 50ms", s)
	}
	return d, nil
}

// extra are arguments added to every conform run.
var extra []string

// secret is the owner secret of both hosts, so that the approval commands
// can sign in as their owner.
const secret = "latency-bench-owner-secret-0123456789abcdef"

// measure starts a target and a peer behind delaying proxies, runs one pack
// against them and returns the line that reports it.
func measure(conform, toolhost, pack string, rtt time.Duration) (string, error) {
	work, err := os.MkdirTemp("", "latencybench")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var urls [2]string
	for i := range urls {
		u, err := startHost(ctx, toolhost, filepath.Join(work, fmt.Sprintf("host%d", i)), rtt/2)
		if err != nil {
			return "", err
		}
		urls[i] = u
	}
	approve := toolhost + " approve --target {target} {user_code}"
	authorize := toolhost + " authorize --target {target} {authorization_url}"
	profile := fmt.Sprintf("target: %s\npeer:\n  target: %s\noauth:\n  device_approval_command: %q\n  authorization_approval_command: %q\n",
		urls[0], urls[1], approve, authorize)
	target := urls[0]
	if pack == "mcp-authorization" {
		target += "/mcp"
		profile = fmt.Sprintf("target: %s\noauth:\n  authorization_approval_command: %q\nmcp_authorization:\n  protected_request: {method: tools/call, params: {name: afs_write, arguments: {path: /overlay/scratch.txt, content: x}}}\n",
			target, strings.ReplaceAll(authorize, "{target}", urls[0]))
	}
	file := filepath.Join(work, "profile.yaml")
	if err := os.WriteFile(file, []byte(profile), 0o600); err != nil {
		return "", err
	}
	args := append([]string{"run", "--spec", pack, "--profile", file, "--format", "progress", "--state-dir", filepath.Join(work, "state")}, extra...)
	cmd := exec.CommandContext(ctx, conform, args...)
	cmd.Env = append(os.Environ(), "TOOLHOST_OWNER_SECRET="+secret, "NO_COLOR=1")
	started := time.Now()
	output, err := cmd.Output()
	took := time.Since(started)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(output)), "\n")
	return fmt.Sprintf("%-18s rtt %-6s %6.2fs  exit %d  %s", pack, rtt, took.Seconds(), code, lines[len(lines)-1]), nil
}

// startHost starts toolhost on a free port behind a delaying proxy and
// returns the proxy's URL, which the host names as its public URL.
func startHost(ctx context.Context, toolhost, data string, delay time.Duration) (string, error) {
	backend, err := freeAddr()
	if err != nil {
		return "", err
	}
	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	public := "http://" + front.Addr().String()
	cmd := exec.CommandContext(ctx, toolhost, "serve", "--addr", backend, "--data", data, "--public-url", public)
	cmd.Env = append(os.Environ(), "TOOLHOST_OWNER_SECRET="+secret)
	if err := cmd.Start(); err != nil {
		front.Close()
		return "", fmt.Errorf("start toolhost: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	go proxy(ctx, front, backend, delay)
	for range 100 {
		if c, err := net.Dial("tcp", backend); err == nil {
			c.Close()
			return public, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("toolhost did not listen on %s", backend)
}

// freeAddr is a loopback address nothing listens on.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// proxy forwards every connection to backend, holding each chunk for delay
// in each direction, until ctx ends.
func proxy(ctx context.Context, front net.Listener, backend string, delay time.Duration) {
	go func() { <-ctx.Done(); front.Close() }()
	for {
		c, err := front.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			b, err := net.Dial("tcp", backend)
			if err != nil {
				return
			}
			defer b.Close()
			// Each direction ends on its own (a half-close goes through), and
			// the connection with the second.
			done := make(chan struct{}, 2)
			go func() { delayedCopy(b, c, delay); done <- struct{}{} }()
			go func() { delayedCopy(c, b, delay); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

// delayedCopy copies src to dst, each chunk delay after it was read.
func delayedCopy(dst, src net.Conn, delay time.Duration) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			time.Sleep(delay)
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			return
		}
	}
}
