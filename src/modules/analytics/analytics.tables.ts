declare module '../../db/types.ts' {
  interface Database {
    analyticsBuckets: AnalyticsBucketsTable;
    analyticsCodes: AnalyticsCodesTable;
    analyticsScripts: AnalyticsScriptsTable;
  }
}

/** One service's counters for one UTC hour (`at` is the hour's start, epoch ms). */
export interface AnalyticsBucketsTable {
  serviceId: string;
  at: number;
  validations: number;
  valid: number;
  refused: number;
  executions: number;
  redemptions: number;
  keySystemKeys: number;
}

export interface AnalyticsCodesTable {
  serviceId: string;
  at: number;
  code: string;
  count: number;
}

export interface AnalyticsScriptsTable {
  serviceId: string;
  at: number;
  scriptId: string;
  executions: number;
}
