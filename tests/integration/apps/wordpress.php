<?php
/*
 * WordPress (Debian's package, /usr/share/wordpress) against one server: installs a site as its installer does,
 * then does what a blog does (posts, terms, comments, meta, options, users, search, paging, revisions, delete)
 * through WordPress's own API, and prints one JSON document: what each step read back, every database error
 * WordPress saw ($EZSQL_ERROR) and the SQL it sent.  tests/integration/test_app_wordpress.py runs it against
 * strata and MariaDB and compares.
 *
 * usage: php wordpress.php HOST PORT USER PASSWORD DB CONTENT_DIR
 */
[$_, $host, $port, $user, $password, $db, $content] = $argv;
$_SERVER['HTTP_HOST'] = 'example.test';
$_SERVER['SERVER_NAME'] = 'example.test';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
define('DB_NAME', $db);
define('DB_USER', $user);
define('DB_PASSWORD', $password);
define('DB_HOST', "$host:$port");
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('ABSPATH', '/usr/share/wordpress/');
define('WP_CONTENT_DIR', $content);
define('WP_INSTALLING', true);
define('WP_DEBUG', false);
define('SAVEQUERIES', true);
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
$table_prefix = 'wp_';
require ABSPATH . 'wp-settings.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/post.php';

global $wpdb, $EZSQL_ERROR;
$out = [];
$wpdb->suppress_errors(true);

$r = wp_install('strata blog', 'admin', 'admin@example.test', true, '', 'secret-password', 'en_US');
$out['install'] = ['user_id' => $r['user_id'], 'tables' => $wpdb->get_col('SHOW TABLES')];
$out['charset'] = [$wpdb->charset, $wpdb->collate, $wpdb->get_var('SELECT @@collation_connection')];
$out['table_collation'] = $wpdb->get_results("SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME", ARRAY_N);
$out['options'] = [get_option('blogname'), get_option('siteurl'), get_option('db_version'), get_option('admin_email')];

// the upgrader again: dbDelta finds nothing to change (it reads DESCRIBE and SHOW INDEX)
$out['dbdelta'] = dbDelta(wp_get_db_schema('all'), false);

// posts, terms, comments, meta
$cat = wp_insert_term('Databases', 'category', ['slug' => 'databases']);
$tag = wp_insert_term('Straße', 'post_tag');
$ids = [];
foreach (['Hello strata', 'Second post', 'Über Kollationen', 'Emoji 😀 title', 'Draft one'] as $i => $title) {
    $ids[] = wp_insert_post([
        'post_title' => $title, 'post_content' => "Content of $title. Ünïcödé body $i.",
        'post_status' => $i == 4 ? 'draft' : 'publish', 'post_author' => 1,
        'post_date' => sprintf('2026-01-%02d 10:00:00', $i + 1),
        'post_category' => [$cat['term_id']], 'tags_input' => $i % 2 ? ['Straße', 'mariadb'] : ['strasse'],
    ], true);
}
$out['post_ids'] = $ids;
add_post_meta($ids[0], 'rating', '5');
add_post_meta($ids[1], 'rating', '3');
update_post_meta($ids[0], 'rating', '4');
$out['meta'] = [get_post_meta($ids[0], 'rating', true), get_post_meta($ids[1], 'rating', true)];
$cid = wp_insert_comment(['comment_post_ID' => $ids[0], 'comment_content' => 'Nice!', 'comment_author' => 'Ann',
                          'comment_approved' => 1]);
wp_insert_comment(['comment_post_ID' => $ids[0], 'comment_content' => 'Spam', 'comment_approved' => 'spam']);
$out['comments'] = [get_comments_number($ids[0]), get_comment($cid)->comment_content];
$out['terms'] = $wpdb->get_results("SELECT t.name, tt.taxonomy, tt.count FROM {$wpdb->terms} t JOIN {$wpdb->term_taxonomy} tt USING (term_id) ORDER BY tt.taxonomy, t.name", ARRAY_N);

// queries a theme makes: paging with FOUND_ROWS, search, taxonomy and meta queries, date archives
$q = new WP_Query(['posts_per_page' => 2, 'paged' => 1, 'orderby' => 'date', 'order' => 'DESC']);
$out['page1'] = [wp_list_pluck($q->posts, 'post_title'), $q->found_posts, $q->max_num_pages];
$q = new WP_Query(['posts_per_page' => 2, 'paged' => 2]);
$out['page2'] = wp_list_pluck($q->posts, 'post_title');
$q = new WP_Query(['s' => 'kollationen']);
$out['search'] = wp_list_pluck($q->posts, 'post_title');
$q = new WP_Query(['tag' => 'strasse', 'orderby' => 'title', 'order' => 'ASC']);
$out['by_tag'] = wp_list_pluck($q->posts, 'post_title');
$q = new WP_Query(['meta_key' => 'rating', 'orderby' => 'meta_value_num', 'order' => 'DESC']);
$out['by_meta'] = wp_list_pluck($q->posts, 'post_title');
$q = new WP_Query(['year' => 2026, 'monthnum' => 1, 'day' => 3]);
$out['by_date'] = wp_list_pluck($q->posts, 'post_title');
$q = new WP_Query(['post_status' => 'any', 'posts_per_page' => -1, 'orderby' => 'ID', 'order' => 'ASC', 'fields' => 'ids']);
$out['all_ids'] = $q->posts;
$out['archives'] = wp_get_archives(['type' => 'monthly', 'echo' => 0]);
$out['count_posts'] = (array)wp_count_posts();

// edits: an update makes a revision, options change, a user is added, a post trashed and deleted
wp_update_post(['ID' => $ids[1], 'post_title' => 'Second post, edited', 'post_content' => 'New body']);
$out['revisions'] = count(wp_get_post_revisions($ids[1]));
update_option('blogdescription', 'Just another strata site');
add_option('strata_test_option', ['a' => 1, 'b' => [2, 3]]);
$out['option_roundtrip'] = [get_option('blogdescription'), get_option('strata_test_option')];
$uid = wp_insert_user(['user_login' => 'editor1', 'user_pass' => 'pw', 'user_email' => 'e@example.test', 'role' => 'editor']);
$out['users'] = [count_users()['total_users'], get_user_by('login', 'editor1')->user_email, user_can($uid, 'edit_posts')];
wp_trash_post($ids[2]);
$out['trashed'] = get_post_status($ids[2]);
wp_delete_post($ids[2], true);
$out['after_delete'] = [get_post($ids[2]) === null, (int)$wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->term_relationships} WHERE object_id = {$ids[2]}")];
$out['transient'] = [set_transient('strata_t', 'v', 3600), get_transient('strata_t')];
wp_cache_flush();
$out['autoload'] = count(wp_load_alloptions()) > 50;

$out['errors'] = array_map(function ($e) { return [$e['query'], $e['error_str']]; }, $EZSQL_ERROR ?: []);
$out['nqueries'] = count($wpdb->queries);
$out['queries'] = array_map(function ($q) { return $q[0]; }, $wpdb->queries);
echo json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE), "\n";
