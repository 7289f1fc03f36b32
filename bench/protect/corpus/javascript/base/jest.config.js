/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  testMatch: ["**/test/**/*.test.js", "**/__tests__/**/*.js"],
  testPathIgnorePatterns: ["/node_modules/"],
  coverageThreshold: { global: { lines: 80, branches: 70 } },
};
