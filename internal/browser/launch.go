package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ChromiumEnv names a Chromium (or Chrome) executable to launch instead
// of the first of ChromiumNames on PATH.
const ChromiumEnv = "WGPU_PROF_CHROMIUM"

// ChromiumNames are the executables FindChromium looks for on PATH, in
// order.
var ChromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// ErrNoChromium: no Chromium executable was found.
var ErrNoChromium = errors.New("browser: no Chromium found")

// FindChromium is $WGPU_PROF_CHROMIUM, else the first of ChromiumNames on
// PATH; an error wrapping ErrNoChromium names what it looked for.
func FindChromium() (string, error) {
	if p := os.Getenv(ChromiumEnv); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNoChromium, ChromiumEnv, p, err)
		}
		return path, nil
	}
	for _, n := range ChromiumNames {
		if path, err := exec.LookPath(n); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%w: none of %s is on PATH (Debian: apt-get install chromium, or scripts/setup.sh --test; "+
		"or set %s to its path)", ErrNoChromium, strings.Join(ChromiumNames, ", "), ChromiumEnv)
}

// LaunchOptions configure Launch.
type LaunchOptions struct {
	// Path is the executable ("": FindChromium).
	Path string
	// Adapter is Chromium's --use-webgpu-adapter ("swiftshader": the CPU
	// implementation, which every machine has; "": the browser's choice).
	Adapter string
	// Args are more command-line switches, before the URL.
	Args []string
}

// Chromium is a headless Chromium started by Launch, in a process group
// of its own, with a temporary profile.
type Chromium struct {
	cmd     *exec.Cmd
	profile string
	stderr  *tail
	exited  chan struct{}
	waitErr error
	once    sync.Once
	closeEr error
}

// Launch starts headless Chromium on url with WebGPU on and a fresh
// temporary profile. Close ends it and removes the profile.
func Launch(url string, o LaunchOptions) (*Chromium, error) {
	path := o.Path
	if path == "" {
		var err error
		if path, err = FindChromium(); err != nil {
			return nil, err
		}
	}
	profile, err := os.MkdirTemp("", "wgpu-prof-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browser: a temporary profile: %w", err)
	}
	args := []string{
		"--headless=new",
		"--user-data-dir=" + profile,
		"--enable-unsafe-webgpu",
		"--disable-gpu-sandbox",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-extensions",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--mute-audio",
	}
	if o.Adapter != "" {
		args = append(args, "--use-webgpu-adapter="+o.Adapter)
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses to start as root otherwise
	}
	args = append(args, o.Args...)
	args = append(args, url)
	cmd := exec.Command(path, args...)
	c := &Chromium{cmd: cmd, profile: profile, stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stdout = c.stderr
	cmd.Stderr = c.stderr
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("browser: start %s: %w", path, err)
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// Exited is closed when the browser process has exited.
func (c *Chromium) Exited() <-chan struct{} { return c.exited }

// ExitError says how the browser ended, with the end of what it wrote
// (cleaned); call it once Exited is closed.
func (c *Chromium) ExitError() error {
	how := "exited"
	if c.waitErr != nil {
		how = c.waitErr.Error()
	}
	msg := fmt.Sprintf("browser: Chromium ended early (%s)", how)
	if t := c.stderr.String(); t != "" {
		msg += "; its last output: " + t
	}
	return errors.New(msg)
}

// Close ends the browser's process group (SIGTERM, then SIGKILL after 3
// s), waits for it, and removes the temporary profile. Later calls return
// the first one's error.
func (c *Chromium) Close() error {
	c.once.Do(func() {
		select {
		case <-c.exited:
		default:
			signalGroup(c.cmd, false)
			select {
			case <-c.exited:
			case <-time.After(3 * time.Second):
				signalGroup(c.cmd, true)
				<-c.exited
			}
		}
		// The group's other processes may outlive its leader briefly.
		signalGroup(c.cmd, true)
		for i := 0; i < 60 && groupAlive(c.cmd); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		var err error
		for i := 0; i < 20; i++ {
			if err = os.RemoveAll(c.profile); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			c.closeEr = fmt.Errorf("browser: remove the temporary profile: %w", err)
		}
	})
	return c.closeEr
}

// Pid is the browser's process id; on Unix also its process group's.
func (c *Chromium) Pid() int { return c.cmd.Process.Pid }

// Profile is the temporary profile's folder (removed by Close).
func (c *Chromium) Profile() string { return c.profile }

// tail keeps the last max bytes written to it, cleaned of control
// characters when read.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Fields(strings.ReplaceAll(string(t.b), "\n", " "))
	s := strings.Join(lines, " ")
	if r := []rune(s); len(r) > 300 {
		s = "…" + string(r[len(r)-300:])
	}
	return Clean(s, 301)
}
