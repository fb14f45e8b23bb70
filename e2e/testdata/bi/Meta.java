// JDBC's DatabaseMetaData on glint through the MariaDB driver (e2e/bi_test.go).
import java.sql.*;
public class Meta {
    static void dump(String name, ResultSet r, String... cols) throws SQLException {
        System.out.println(name);
        while (r.next()) {
            StringBuilder b = new StringBuilder("  ");
            for (String c : cols) b.append(c).append('=').append(r.getString(c)).append(' ');
            System.out.println(b.toString().trim());
        }
    }
    public static void main(String[] a) throws Exception {
        String url = "jdbc:mariadb://" + a[0] + ":" + a[1] + "/" + a[2] + "?user=root" + (a.length > 3 ? a[3] : "");
        try (Connection c = DriverManager.getConnection(url)) {
            DatabaseMetaData m = c.getMetaData();
            System.out.println("product " + m.getDatabaseProductName() + " " + m.getDatabaseMajorVersion());
            dump("catalogs", m.getCatalogs(), "TABLE_CAT");
            dump("tables", m.getTables("glint", null, "%", new String[]{"TABLE"}), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE");
            dump("tables of any type like n%", m.getTables(null, null, "n%", null), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE");
            dump("columns", m.getColumns("glint", null, "%", "%"), "TABLE_NAME", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "REMARKS", "ORDINAL_POSITION", "IS_AUTOINCREMENT");
            dump("primaryKeys", m.getPrimaryKeys("glint", null, "books"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
            dump("indexInfo", m.getIndexInfo("glint", null, "books", false, false), "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "COLUMN_NAME");
            dump("importedKeys", m.getImportedKeys("glint", null, "books"), "FKTABLE_NAME", "FKCOLUMN_NAME");
            dump("exportedKeys", m.getExportedKeys("glint", null, "books"), "PKTABLE_NAME", "PKCOLUMN_NAME");
            if (!m.getDatabaseProductName().equals("MariaDB")) {
                try (PreparedStatement p = c.prepareStatement("SELECT id, title FROM books WHERE MATCH(?)")) {
                    p.setString(1, "hobbit");
                    dump("match", p.executeQuery(), "id", "title");
                }
            }
        }
    }
}
