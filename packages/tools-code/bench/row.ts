/** A benchmark row, as bench/index.ts prints it and writes it to reports/bench/tools-code.json. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  reference?: { name: string; value: number };
  target: string;
  met: boolean;
}
