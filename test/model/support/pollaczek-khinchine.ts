/**
 * M/G/1 ground truth: Poisson arrivals (λ), one server, any service-time law with mean E[S] and
 * second moment E[S²], unbounded FIFO queue. Pollaczek–Khinchine: Wq = λ E[S²] / (2 (1 − ρ)),
 * ρ = λ E[S]; in the unit of 1/λ and S.
 */
export function mg1MeanWait(lambda: number, meanService: number, serviceSecondMoment: number): number {
  const rho = lambda * meanService;
  if (rho >= 1) throw new Error(`unstable: ρ = ${rho}`);
  return (lambda * serviceSecondMoment) / (2 * (1 - rho));
}
