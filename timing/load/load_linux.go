package load

import (
	"bytes"
	"os"
	"strconv"
)

// readStat reads the aggregate "cpu" line of /proc/stat: user nice
// system idle iowait irq softirq steal (guest time is inside user).
func readStat() (counters, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return counters{}, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return counters{}, false
	}
	var v [8]float64
	for i := range v {
		x, err := strconv.ParseFloat(string(f[i+1]), 64)
		if err != nil {
			return counters{}, false
		}
		v[i] = x
	}
	user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return counters{
		busy:  user + nice + system + irq + softirq,
		steal: steal,
		total: user + nice + system + idle + iowait + irq + softirq + steal,
	}, true
}

// readSelf is this process's user and system time in ticks (fields 14
// and 15 of /proc/self/stat, counted after the command's closing paren).
func readSelf() (float64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	// After ")": state is field 3, utime field 14, stime field 15.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(string(f[11]), 64)
	s, err2 := strconv.ParseFloat(string(f[12]), 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + s, true
}
