import * as s from './src/schemas.js';
console.log(JSON.stringify(s.CodeIntelligenceParametersReadOnly).slice(0, 400));
console.log(JSON.stringify(s.FileOutlineParameters));
