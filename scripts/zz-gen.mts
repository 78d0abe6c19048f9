import { writeFileSync } from 'node:fs';
import { generateApiFiles, OPENAPI_PATH, REFERENCE_PATH, SCHEMA_PATH } from './gen-api.ts';
const keep = setInterval(() => {}, 1000);
const fresh = await generateApiFiles();
writeFileSync(OPENAPI_PATH, fresh.openapi);
writeFileSync(SCHEMA_PATH, fresh.schema);
writeFileSync(REFERENCE_PATH, fresh.reference);
clearInterval(keep);
console.log('written');
