// The same service tested as production calls it: an open model (arrival-rate executors start
// requests on schedule whatever the responses), a ramp before the measured load, two callers of
// different shapes, and the SLO as thresholds. `npx stampede lint profiles/k6/open-model.js`: no flags.
import http from 'k6/http';

const TARGET = __ENV.TARGET || 'http://127.0.0.1:8080';

export const options = {
  scenarios: {
    browse: {
      executor: 'ramping-arrival-rate',
      exec: 'browse',
      startRate: 0,
      timeUnit: '1s',
      preAllocatedVUs: 50,
      maxVUs: 500,
      stages: [
        { target: 400, duration: '15s' },
        { target: 400, duration: '60s' },
      ],
    },
    bulkLookup: {
      executor: 'constant-arrival-rate',
      exec: 'bulkLookup',
      rate: 2,
      timeUnit: '1s',
      duration: '75s',
      preAllocatedVUs: 5,
      maxVUs: 50,
    },
  },
  thresholds: {
    http_req_duration: ['p(99)<250'],
    http_req_failed: ['rate<0.001'],
  },
};

export function browse() {
  http.get(`${TARGET}/items/item:${Math.floor(Math.random() * 1000)}`, { tags: { name: 'GET /items/:id' } });
}

export function bulkLookup() {
  const keys = Array.from({ length: 5000 }, (_, i) => `item:${i}`);
  http.post(`${TARGET}/items`, JSON.stringify({ keys }), { headers: { 'content-type': 'application/json' } });
}
