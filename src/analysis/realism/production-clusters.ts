/*
 * The per-cluster statistics of 54 Twitter production cache clusters (Twemcache/Pelikan, one week,
 * March 2020), as published in the public repository twitter/cache-trace (stat/2020Mar.md; data
 * CC-BY 4.0) and described in Yang, Yue, Vinayak, "A large scale analysis of hundreds of in-memory
 * cache clusters at Twitter", OSDI 2020. The columns the realism flags compare a profile with, from
 * profiles/data/twitter-cache-stats-2020Mar.csv (test/analysis/production-clusters.test.ts holds
 * them equal); undefined where the table says NA.
 */

export interface ProductionCluster {
  cluster: string;
  zipfAlpha: number | undefined;
  /** Share of keys requested once, percent. */
  oneHitWonderPct: number | undefined;
  /** Mean value size, bytes. */
  valueSize: number | undefined;
  keySize: number | undefined;
  /** Operation shares, as the table writes them: "get:0.93 set:0.07"; '' where NA. */
  operations: string;
  /** Common TTLs, as the table writes them: "60s:0.39 300s:0.24"; '' where NA. */
  commonTtls: string;
}

type Row = [string, number | undefined, number | undefined, number | undefined, number | undefined, string, string];

const ROWS: Row[] = [
  ['cluster1', 2.6774, 0.01, 267, 80, 'get:0.99', '240s:1.00'],
  ['cluster2', 1.4908, 0.01, 68, 21, 'get:1.00', '4d:0.59 2d:0.41'],
  ['cluster3', 1.6414, 15.66, 120, 19, 'get:0.99', '7d:1.00'],
  ['cluster4', 1.1004, 29.33, 2439, 67, 'get:0.93 set:0.07', '60s:0.39 300s:0.24 1h:0.13 600s:0.12 4h:0.09 1d:0.03'],
  ['cluster5', undefined, undefined, undefined, undefined, '', ''],
  ['cluster6', 1.882, 0.63, 252, 44, 'get:0.98 set:0.02', '~500s (490-596s spread)'],
  ['cluster7', 1.0666, 0.01, 1936, 17, 'get:0.82 set:0.18', '1.6h-2h'],
  ['cluster8', 1.7366, 0.34, 9497, 23, 'set:0.50 get:0.50', '1380s:0.95 1379s:0.05'],
  ['cluster9', 1.6796, 8.5, 39, 32, 'get:0.99', '2h:0.79 1.1h-1.9h:0.21'],
  ['cluster10', 0, 0.08, 2333, 22, 'add:0.50 get:0.50', '2h:1.00'],
  ['cluster11', 1.4891, 6.18, 170, 24, 'get:0.96 add:0.02 gets:0.01 cas:0.01', '5d:0.97 20s:0.03'],
  ['cluster12', 0.3048, 81.43, 1030, 44, 'set:0.80 get:0.20', '300s:0.98 299s:0.02'],
  ['cluster13', 0.4565, 64.39, 4266, 44, 'get:0.38 set:0.62', '300s:0.97 299s:0.03'],
  ['cluster14', 1.2959, 10.94, 414, 96, 'get:0.65 delete:0.22 set:0.13', '1d:1.00'],
  ['cluster15', 0.0242, 99.57, 102, 18, 'set:1.00', '30s:1.00'],
  ['cluster16', 1.7862, 1.89, 115, 18, 'get:0.93 set:0.04 add:0.01', '1h:0.99'],
  ['cluster17', 2.1106, 38.87, 212, 19, 'get:0.99', '5d:1.00'],
  ['cluster18', 2.0994, 0.71, 37, 18, 'get:0.96 add:0.01 gets:0.01 cas:0.01', '12h:1.00'],
  ['cluster19', 0.735, 7.46, 101, 42, 'get:0.75 set:0.25', '6.6h-7.5h'],
  ['cluster20', 1.3699, 61.54, 55, 26, 'get:0.96 add:0.03', '5d:0.99'],
  ['cluster21', 0.0521, 98.96, 1, 25, 'add:1.00', '2.2h:0.62 10s:0.23 900s:0.14'],
  ['cluster22', 0.7624, 41.48, 4, 54, 'get:0.72 incr:0.18 set:0.10', '1d:0.85 1h:0.11 1800s:0.03'],
  ['cluster23', 0.274, 1.17, 224, 35, 'set:0.31 get:0.36 incr:0.30 delete:0.02', '120s:0.93 2700s:0.05 5s:0.03'],
  ['cluster24', 1.3726, 5.65, 699, 32, 'get:0.99', '14d:0.71 60s:0.19 30d:0.03 1d:0.02 1h:0.02'],
  ['cluster25', 0.9929, 3.22, 28, 49, 'get:0.95 add:0.02 gets:0.02 cas:0.02', '30d:0.99'],
  ['cluster26', 0.6299, 0.11, 1745, 122, 'get:0.71 set:0.29', '60s:0.67 120s:0.10 360s:0.09 600s:0.06 660s:0.03 180s:0.02'],
  ['cluster27', 1.065, 22.21, 8, 66, 'get:0.85 set:0.15', '92.6d:0.28 1d:0.25 1h:0.20 4h:0.18 6h:0.06 12h:0.02'],
  ['cluster28', 1.503, 27.13, 85, 45, 'get:0.91 set:0.03 add:0.03', '3h:0.56 1.2d:0.43'],
  ['cluster29', 1.2323, 23.04, 799, 36, 'get:0.86 set:0.13', '1h:0.67 2h:0.33'],
  ['cluster30', 1.4259, 2.77, 689, 22, 'get:0.99', '12h:0.36 9.7h-11.9h'],
  ['cluster31', 0, 94.06, 15, 41, 'set:0.94 get:0.06', '60s:1.00'],
  ['cluster32', 0, 97.56, 138, 41, 'set:0.98 get:0.02', '60s:1.00'],
  ['cluster33', 1.354, 0.99, 1118, 24, 'get:0.99 set:0.01', '9.8h-11.7h'],
  ['cluster34', 1.1401, 0.26, 322, 33, 'get:0.94 set:0.06', '9.7h-11.2h'],
  ['cluster35', 0, 31.01, 1796, 19, 'get:0.96 set:0.04', '60s:1.00'],
  ['cluster36', 1.2169, 2.4, 78, 23, 'get:0.93 add:0.04 gets:0.01 cas:0.01', '30d:1.00'],
  ['cluster37', 0.4251, 14.88, 20134, 72, 'set:0.37 get:0.63', '20s:0.91 300s:0.06 2h:0.02 600s:0.01'],
  ['cluster38', 0, 94.06, 185, 41, 'set:0.94 get:0.06', '60s:1.00'],
  ['cluster39', 0, 94.06, 80, 41, 'set:0.94 get:0.06', '60s:1.00'],
  ['cluster40', 0.8551, 0.1, 155, 44, 'set:0.50 get:0.50', '8h:0.95 1d:0.05'],
  ['cluster41', 0.8542, 0, 171, 44, 'get:0.50 set:0.50', '8h:0.95 1d:0.05'],
  ['cluster42', 1.5974, 0.05, 4703, 40, 'get:0.96 add:0.04', '600s:0.82 300s:0.16 6h:0.02'],
  ['cluster43', undefined, 0, 304, 44, 'set:0.50 get:0.50', '8h:1.00'],
  ['cluster44', 1.4084, 20.24, 22, 25, 'get:0.98 add:0.01', '30d:1.00'],
  ['cluster45', 0.6372, 48.74, 120, 10, 'add:0.15 get:0.85', '15d:1.00'],
  ['cluster46', undefined, 0.12, 928, 44, 'set:0.32 get:0.68', '12h:0.58 1h:0.41'],
  ['cluster47', 2.0637, 4.28, 267, 44, 'get:1.00', '2d:1.00'],
  ['cluster48', 0.8191, 44.28, 70, 44, 'set:0.35 get:0.65', '1d:1.00'],
  ['cluster49', 1.5095, 0.88, 10658, 44, 'set:0.43 get:0.57', '1d:0.99 24h:0.01'],
  ['cluster50', 1.2816, 7.86, 67485, 18, 'get:0.52 set:0.48', '900s:0.73 1200s:0.24 1199s:0.03'],
  ['cluster51', 1.9745, 5.65, 221, 44, 'get:0.90 set:0.10', '2d:1.00'],
  ['cluster52', 1.2117, 19.36, 273, 20, 'get:0.91 add:0.04 gets:0.02 cas:0.02', '1d:0.65 14d:0.27 12h:0.07'],
  ['cluster53', 1.2061, 13.19, 9213, 36, 'get:0.89 set:0.03 prepend:0.09', '30d:0.66 21d:0.34'],
  ['cluster54', 1.611, 54.83, 246, 19, 'get:0.97 set:0.03', '3.2h-4h'],
];

export const PRODUCTION_CLUSTERS: readonly ProductionCluster[] = ROWS.map(([cluster, zipfAlpha, oneHitWonderPct, valueSize, keySize, operations, commonTtls]) => ({
  cluster,
  zipfAlpha,
  oneHitWonderPct,
  valueSize,
  keySize,
  operations,
  commonTtls,
}));
