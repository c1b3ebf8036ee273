package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cookieName has the __Host- prefix: the browser keeps it only if it is
// Secure, for path / and no domain, so no other host can set it.
const cookieName = "__Host-limen"

// sessionKeyFile holds the key that signs session cookies, in the data
// directory, so that a session outlives a restart of limend (and the live
// stream resumes) while no cookie can be made without the file.
const sessionKeyFile = "web-session.key"

// sessionTTL is how long a paired browser stays logged in.
const sessionTTL = 30 * 24 * time.Hour

func loadOrMakeKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, sessionKeyFile)
	key, err := os.ReadFile(path)
	switch {
	case err == nil && len(key) == 32:
		return key, nil
	case err == nil:
		return nil, fmt.Errorf("%s is %d bytes, not 32: remove it to make a new one (every paired browser then logs in again)", path, len(key))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read the web app's session key: %w", err)
	}
	key = make([]byte, 32)
	rand.Read(key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil, fmt.Errorf("write the web app's session key: %w", err)
	}
	return key, nil
}

// sessions signs and checks session cookies: device id and expiry, with
// an HMAC. The device must still exist for a cookie to count: revoking it
// ends every session at once.
type sessions struct {
	key []byte
	now func() time.Time
}

func (s sessions) mac(payload string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// cookie is the session cookie for device.
func (s sessions) cookie(device string) *http.Cookie {
	exp := s.now().Add(sessionTTL)
	payload := device + "." + strconv.FormatInt(exp.Unix(), 10)
	return &http.Cookie{
		Name: cookieName, Value: payload + "." + s.mac(payload), Path: "/",
		Expires: exp, MaxAge: int(sessionTTL / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode,
	}
}

// device returns the device id of a valid cookie on r.
func (s sessions) device(r *http.Request) (string, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return "", false
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 {
		return "", false
	}
	payload := parts[0] + "." + parts[1]
	if !hmac.Equal([]byte(parts[2]), []byte(s.mac(payload))) {
		return "", false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || s.now().Unix() >= exp {
		return "", false
	}
	return parts[0], true
}
