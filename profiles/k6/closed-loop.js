// The k6 script most load tests start from: 50 VUs looping for 30 s, no thresholds.
// `npx stampede lint profiles/k6/closed-loop.js` calls it INVALID (exit 1): each VU waits for its
// response before its next request, so a stalled target is sent less load and its stall is never
// measured (coordinated omission); nothing warms up; k6 passes whatever the latency.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  vus: 50,
  duration: '30s',
};

export default function () {
  const res = http.get(`${__ENV.TARGET || 'http://127.0.0.1:8080'}/items/item:1`);
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(0.1);
}
