package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCert writes a self-signed certificate for 127.0.0.1 and its key (PEM)
// into dir and returns their paths.
func testCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "glint test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile
}

// startTLSServer starts glintd with TLS from a config file and one user,
// alice, whose password must then cross TLS only.
func startTLSServer(t *testing.T) (s *Server, certFile string) {
	dir := t.TempDir()
	certFile, keyFile := testCert(t, dir)
	conf := filepath.Join(dir, "glintd.conf")
	require.NoError(t, os.WriteFile(conf, []byte("ssl_cert = "+certFile+"\nssl_key = "+keyFile+"\nuser = alice:s3cret\n"), 0o644))
	return StartServer(t, WithArgs("--config", conf)), certFile
}

// TestTLSClients: with ssl_cert and ssl_key, the mysql CLI, Go's driver,
// PyMySQL and a JDBC driver connect over TLS with the user's password
// (caching_sha2_password: the first connection does the full
// authentication, the next the cached one), the same clients on a plain
// connection get error 3159 before the password is checked, and curl gets
// the HTTP API over HTTPS with Basic authentication.
func TestTLSClients(t *testing.T) {
	s, certFile := startTLSServer(t)
	host, port, err := net.SplitHostPort(s.MySQLAddr)
	require.NoError(t, err)
	refused := "this server takes passwords over TLS only: connect with TLS (mysql --ssl, or --ssl-mode=REQUIRED)"

	t.Run("mysql CLI", func(t *testing.T) {
		args := []string{"-h", host, "-P", port, "-u", "alice", "-ps3cret", "--batch", "--skip-column-names"}
		for range 2 {
			out, err := exec.Command(CLIBinary(t), append(args, "--ssl", "--ssl-ca="+certFile, "--ssl-verify-server-cert",
				"-e", "SELECT 40+2, @@have_ssl")...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, "42\tYES\n", string(out))
		}
		out, err := exec.Command(CLIBinary(t), append(args, "--skip-ssl", "-e", "SELECT 1")...).CombinedOutput()
		require.Error(t, err)
		assert.Equal(t, "ERROR 3159 (HY000): "+refused+"\n", string(out))
	})

	t.Run("Go driver", func(t *testing.T) {
		pool := x509.NewCertPool()
		pem, err := os.ReadFile(certFile)
		require.NoError(t, err)
		require.True(t, pool.AppendCertsFromPEM(pem))
		require.NoError(t, mysql.RegisterTLSConfig("glint-test", &tls.Config{RootCAs: pool, ServerName: host}))
		for _, dsn := range []string{"alice:s3cret@tcp(" + s.MySQLAddr + ")/?tls=glint-test", "alice:s3cret@tcp(" + s.MySQLAddr + ")/?tls=glint-test"} {
			db, err := sql.Open("mysql", dsn)
			require.NoError(t, err)
			var n int
			require.NoError(t, db.QueryRow("SELECT 6*7").Scan(&n))
			assert.Equal(t, 42, n)
			db.Close()
		}
		db, err := sql.Open("mysql", "alice:s3cret@tcp("+s.MySQLAddr+")/?tls=false&allowNativePasswords=true")
		require.NoError(t, err)
		defer db.Close()
		err = db.Ping()
		var myErr *mysql.MySQLError
		require.ErrorAs(t, err, &myErr)
		assert.Equal(t, uint16(3159), myErr.Number)
		assert.Equal(t, refused, myErr.Message)

		db, err = sql.Open("mysql", "alice:wrong@tcp("+s.MySQLAddr+")/?tls=glint-test")
		require.NoError(t, err)
		defer db.Close()
		require.ErrorAs(t, db.Ping(), &myErr)
		assert.Equal(t, uint16(1045), myErr.Number, "a wrong password over TLS")
	})

	t.Run("PyMySQL", func(t *testing.T) {
		python := pythonWith(t, "pymysql")
		script := `
import sys, pymysql
host, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for _ in range(2):
    c = pymysql.connect(host=host, port=port, user="alice", password="s3cret", ssl_ca=ca, ssl_verify_cert=True, ssl_verify_identity=True)
    cur = c.cursor(); cur.execute("SELECT 40+2"); print(cur.fetchone()[0]); c.close()
try:
    pymysql.connect(host=host, port=port, user="alice", password="s3cret")
except pymysql.err.OperationalError as e:
    print(e.args[0], e.args[1])
`
		out, err := exec.Command(python, "-c", script, host, port, certFile).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "42\n42\n3159 "+refused+"\n", string(out))
	})

	t.Run("JDBC", func(t *testing.T) {
		jar := "/usr/share/java/mariadb-java-client.jar"
		if _, err := os.Stat(jar); err != nil {
			requireTool(t, "the JDBC driver "+jar+" (libmariadb-java)")
		}
		java, err := exec.LookPath("java")
		if err != nil {
			requireTool(t, "java")
		}
		src := filepath.Join(t.TempDir(), "TLSCheck.java")
		require.NoError(t, os.WriteFile(src, []byte(`
import java.sql.*;
public class TLSCheck {
    public static void main(String[] a) throws Exception {
        String base = "jdbc:mariadb://" + a[0] + ":" + a[1] + "/?user=alice&password=s3cret";
        for (int i = 0; i < 2; i++) {
            try (Connection c = DriverManager.getConnection(base + "&useSsl=true&serverSslCert=" + a[2]);
                 ResultSet r = c.createStatement().executeQuery("SELECT 40+2")) {
                r.next();
                System.out.println(r.getLong(1));
            }
        }
        try (Connection c = DriverManager.getConnection(base)) {
            System.out.println("plain connected");
        } catch (SQLException e) {
            System.out.println(e.getErrorCode());
        }
    }
}
`), 0o644))
		out, err := exec.Command(java, "-cp", jar, src, host, port, certFile).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "42\n42\n3159\n", string(out))
	})

	t.Run("curl over HTTPS", func(t *testing.T) {
		curl, err := exec.LookPath("curl")
		if err != nil {
			requireTool(t, "curl")
		}
		out, err := exec.Command(curl, "-sS", "--cacert", certFile, "-u", "alice:s3cret",
			"https://"+s.HTTPAddr+"/sql?mode=raw", "-d", "SELECT 40+2").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), `"data":[{"40+2":42}]`)
		out, err = exec.Command(curl, "-sS", "--cacert", certFile, "-o", "/dev/null", "-w", "%{http_code}",
			"https://"+s.HTTPAddr+"/sql?mode=raw", "-d", "SELECT 1").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "401", string(out), "no password")
		resp, err := http.Post("http://"+s.HTTPAddr+"/sql?mode=raw", "text/plain", strings.NewReader("SELECT 1"))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain HTTP on the HTTPS listener: %s", body)
	})
}

// TestUsersWithoutTLS: users without TLS are refused at start unless the
// owner allows plain passwords; half a certificate pair is refused too.
func TestUsersWithoutTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, _ := testCert(t, dir)
	for _, c := range []struct{ conf, want string }{
		{"user = alice:s3cret\n", "glintd: users are configured but TLS is not (ssl_cert and ssl_key): their passwords would cross plain connections; configure TLS, or set allow_plain_passwords = true\n"},
		{"ssl_cert = " + certFile + "\n", "glintd: ssl_cert is set but ssl_key is not: TLS needs both\n"},
		{"ssl_cert = " + certFile + "\nssl_key = " + certFile + "\n", "glintd: ssl_cert " + certFile + ", ssl_key " + certFile + ": tls: found a certificate rather than a key in the PEM for the private key\n"},
	} {
		conf := filepath.Join(dir, "glintd.conf")
		require.NoError(t, os.WriteFile(conf, []byte(c.conf), 0o644))
		cmd := exec.Command(glintd(t), "--config", conf, "--data", filepath.Join(dir, "data"),
			"--mysql-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		assert.Equal(t, 2, exit.ExitCode())
		assert.Equal(t, c.want, string(out))
	}

	conf := filepath.Join(dir, "plain.conf")
	require.NoError(t, os.WriteFile(conf, []byte("user = alice:s3cret\nallow_plain_passwords = true\n"), 0o644))
	s := StartServer(t, WithArgs("--config", conf))
	db, err := sql.Open("mysql", "alice:s3cret@tcp("+s.MySQLAddr+")/")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Ping(), "allowed: mysql_native_password on a plain connection")
}

// requireTool skips the test for want of a tool, or fails it when
// GLINT_REQUIRE_CLIENTS=1 (make test sets it: scripts/install-test-deps.sh
// installs every client the tests drive).
func requireTool(t *testing.T, what string) {
	t.Helper()
	skipUnlessRequired(t, "GLINT_REQUIRE_CLIENTS", what+" is not installed (scripts/install-test-deps.sh installs it)")
}

// pythonWith returns a python3 that can import module: the one on PATH, or
// Debian's, where apt installs python3-pymysql.
func pythonWith(t *testing.T, module string) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(name); err == nil && exec.Command(p, "-c", "import "+module).Run() == nil {
			return p
		}
	}
	requireTool(t, "python3 with "+module)
	return ""
}

// TestTLSSmallMaxAllowedPacket: the packet guard reads MySQL packets, not
// TLS records: it steps aside once the client's SSL request has gone by,
// so a small max_allowed_packet does not refuse every TLS connection (it
// read the records' bytes as packet headers), and a statement over the
// limit is refused once read.
func TestTLSSmallMaxAllowedPacket(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := testCert(t, dir)
	conf := filepath.Join(dir, "glintd.conf")
	require.NoError(t, os.WriteFile(conf, []byte("ssl_cert = "+certFile+"\nssl_key = "+keyFile+"\nuser = alice:s3cret\n"), 0o644))
	s := StartServer(t, WithArgs("--config", conf, "--max-allowed-packet", "64K"))
	host, port, err := net.SplitHostPort(s.MySQLAddr)
	require.NoError(t, err)
	args := []string{"-h", host, "-P", port, "-u", "alice", "-ps3cret", "--batch", "--skip-column-names", "--ssl", "--ssl-ca=" + certFile}
	for range 3 {
		out, err := exec.Command(CLIBinary(t), append(args, "-e", "SELECT 40+2")...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "42\n", string(out))
	}
	out, err := exec.Command(CLIBinary(t), append(args, "-e", "SELECT '"+strings.Repeat("x", 70000)+"'")...).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "ERROR 1153 (08S01)")
}
