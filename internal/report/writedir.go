package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// DirFile is one file of a set WriteDir writes.
type DirFile struct {
	Name  string // a plain file name (no directory)
	Write func(io.Writer) error
}

// WriteDir writes files into dir as a whole, so that a failure at any
// step (a writer's error, a full disk) leaves dir as it was (or absent)
// and success leaves every file of the new set: each file is written,
// flushed and fsynced into a temporary folder first; only when all are
// complete are they moved into place (one rename of the folder when dir
// does not exist yet; otherwise one rename per file, each replaced file
// kept aside until all have moved, and put back if a move fails). Files
// in dir that the set does not name are left alone.
func WriteDir(dir string, files []DirFile) (err error) {
	if err := checkDirFiles(dir, files); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("report: write %s: %w", dir, err)
	}
	_, statErr := os.Stat(abs)
	exists := statErr == nil
	stageIn := filepath.Dir(abs)
	if exists {
		stageIn = abs
	} else if err := os.MkdirAll(stageIn, 0o755); err != nil {
		return fmt.Errorf("report: write %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(stageIn, "."+filepath.Base(abs)+".wgpu-prof-new-*")
	if err != nil {
		return fmt.Errorf("report: write %s: cannot create a folder in %s: %w", dir, stageIn, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range files {
		if err := writeSynced(filepath.Join(tmp, f.Name), f.Write); err != nil {
			return fmt.Errorf("report: write %s: %w", filepath.Join(dir, f.Name), err)
		}
	}
	if !exists {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return fmt.Errorf("report: write %s: %w", dir, err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			return fmt.Errorf("report: write %s: %w", dir, err)
		}
		syncDir(stageIn)
		return nil
	}
	if err := swapIn(abs, tmp, files); err != nil {
		return err
	}
	syncDir(abs)
	os.RemoveAll(tmp)
	return nil
}

// checkDirFiles refuses an unnamed folder and file names that are empty,
// not plain names or repeated.
func checkDirFiles(dir string, files []DirFile) error {
	if dir == "" {
		return fmt.Errorf("report: write folder: no folder named")
	}
	seen := map[string]bool{}
	for _, f := range files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || f.Name == "." || f.Name == ".." || seen[f.Name] {
			return fmt.Errorf("report: write %s: bad or repeated file name %q", dir, f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}

// swapIn moves each old file of the existing folder abs aside into the
// staging folder tmp, then the new one from tmp into place; on a failure
// it undoes every step so far.
func swapIn(abs, tmp string, files []DirFile) error {
	type step struct{ name, aside string }
	var done []step
	undo := func() {
		for i := len(done) - 1; i >= 0; i-- {
			s := done[i]
			target := filepath.Join(abs, s.name)
			os.Rename(target, filepath.Join(tmp, s.name))
			if s.aside != "" {
				os.Rename(s.aside, target)
			}
		}
	}
	for _, f := range files {
		target := filepath.Join(abs, f.Name)
		s := step{name: f.Name}
		if _, err := os.Lstat(target); err == nil {
			s.aside = filepath.Join(tmp, ".old-"+f.Name)
			if err := os.Rename(target, s.aside); err != nil {
				undo()
				return fmt.Errorf("report: write %s: %w", target, err)
			}
		}
		if err := os.Rename(filepath.Join(tmp, f.Name), target); err != nil {
			if s.aside != "" {
				os.Rename(s.aside, target)
			}
			undo()
			return fmt.Errorf("report: write %s: %w", target, err)
		}
		done = append(done, s)
	}
	return nil
}

// writeSynced creates path (mode 0644) and fills, flushes, fsyncs and
// closes it.
func writeSynced(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
