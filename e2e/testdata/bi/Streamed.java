// Server-side prepared statements through the MariaDB JDBC driver
// (e2e/bi_test.go): a parameter streamed ahead (setCharacterStream,
// setBinaryStream: COM_STMT_SEND_LONG_DATA), a batch whose later rows do
// not send the parameter types again, and the rows read back.
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.Arrays;

public class Streamed {
    public static void main(String[] a) throws Exception {
        String url = "jdbc:mariadb://" + a[0] + ":" + a[1] + "/" + a[2] + "?user=root" + (a.length > 3 ? a[3] : "");
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE notes (title text, body text, n int)");
            }
            StringBuilder long1 = new StringBuilder();
            for (int i = 0; i < 3000; i++) long1.append("many words ");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO notes (id, title, body, n) VALUES (?, ?, ?, ?)")) {
                p.setLong(1, 1);
                p.setString(2, "streamed text");
                p.setCharacterStream(3, new StringReader(long1 + "and a dragon"));
                p.setInt(4, 10);
                System.out.println("streamed text: " + p.executeUpdate());
                p.setLong(1, 2);
                p.setString(2, "streamed bytes");
                byte[] b = ("a hoard of gold " + long1 + "beside a dragon").getBytes(StandardCharsets.UTF_8);
                p.setBinaryStream(3, new ByteArrayInputStream(b), b.length);
                p.setInt(4, 20);
                System.out.println("streamed bytes: " + p.executeUpdate());
                for (int i = 3; i <= 5; i++) {
                    p.setLong(1, i);
                    p.setString(2, "batch row " + i);
                    p.setString(3, "the dragon of row " + i);
                    p.setInt(4, i * 10);
                    p.addBatch();
                }
                System.out.println("batch: " + Arrays.toString(p.executeBatch()));
            }
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT id, title, LENGTH(body), n, HIGHLIGHT() FROM notes WHERE MATCH(?) AND n > ? ORDER BY id ASC")) {
                for (int n : new int[]{0, 25}) {
                    q.setString(1, "dragon");
                    q.setInt(2, n);
                    System.out.println("dragon, n > " + n);
                    try (ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            System.out.println("  " + rs.getLong(1) + " | " + rs.getString(2) + " | " + rs.getLong(3) + " | " + rs.getInt(4) + " | " + rs.getString(5));
                        }
                    }
                }
            }
        }
    }
}
